// Standalone Khalti sandbox (`npm run khalti-sandbox`), configured from the environment, for
// running the bot against it by hand: point its Khalti base URL here and pay in a browser.

import { createKhaltiSandbox } from "./server.js";

interface StandaloneConfig {
  host: string;
  port: number;
  secretKey: string;
  expiresInSeconds: number;
}

function readConfig(env: NodeJS.ProcessEnv): { config?: StandaloneConfig; errors: string[] } {
  const errors: string[] = [];
  const host = env.KHALTI_SANDBOX_HOST?.trim() || "127.0.0.1";
  const port = Number(env.KHALTI_SANDBOX_PORT?.trim() || "8091");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    errors.push(
      `KHALTI_SANDBOX_PORT must be an integer 0..65535, got "${env.KHALTI_SANDBOX_PORT}"`,
    );
  }
  const secretKey = env.KHALTI_SECRET_KEY?.trim() || "sandbox-secret-key";
  if (!/^\S+$/.test(secretKey)) errors.push("KHALTI_SECRET_KEY must not contain whitespace");
  const expiresInSeconds = Number(env.KHALTI_SANDBOX_EXPIRES_IN_SECONDS?.trim() || "1800");
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds <= 0) {
    errors.push(
      `KHALTI_SANDBOX_EXPIRES_IN_SECONDS must be a positive integer, got "${env.KHALTI_SANDBOX_EXPIRES_IN_SECONDS}"`,
    );
  }
  if (errors.length > 0) return { errors };
  return { config: { host, port, secretKey, expiresInSeconds }, errors };
}

const { config, errors } = readConfig(process.env);
if (!config) {
  for (const error of errors) console.error(`khalti-sandbox: ${error}`);
  process.exit(1);
}

const khalti = await createKhaltiSandbox(config).catch((error: unknown) => {
  const reason = error instanceof Error ? error.message : String(error);
  console.error(`khalti-sandbox: cannot listen on ${config.host}:${config.port}: ${reason}`);
  process.exit(1);
});
console.log(
  [
    `Khalti sandbox listening on ${khalti.url} (links expire after ${config.expiresInSeconds} s)`,
    `  POST ${khalti.url}/api/v2/epayment/initiate/`,
    `  POST ${khalti.url}/api/v2/epayment/lookup/`,
    `  POST ${khalti.url}/api/merchant-transaction/<transaction_id>/refund/`,
    `  Authorization: Key ${config.secretKey}`,
    `  Payment pages: ${khalti.url}/pay/<pidx>`,
    `  Control API: ${khalti.url}/_sandbox/{payments,requests,faults,reset}`,
  ].join("\n"),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`khalti-sandbox: ${signal}, closing`);
    khalti.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
