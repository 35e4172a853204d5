// Standalone eSewa sandbox (`npm run esewa-sandbox`), configured from the environment, for
// running the bot against it by hand: point its eSewa form and status URLs here and pay in a
// browser.

import { createEsewaSandbox, TEST_PRODUCT_CODE, TEST_SECRET_KEY } from "./server.js";

interface StandaloneConfig {
  host: string;
  port: number;
  productCode: string;
  secretKey: string;
  failureData: boolean;
}

function readConfig(env: NodeJS.ProcessEnv): { config?: StandaloneConfig; errors: string[] } {
  const errors: string[] = [];
  const host = env.ESEWA_SANDBOX_HOST?.trim() || "127.0.0.1";
  const port = Number(env.ESEWA_SANDBOX_PORT?.trim() || "8092");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    errors.push(`ESEWA_SANDBOX_PORT must be an integer 0..65535, got "${env.ESEWA_SANDBOX_PORT}"`);
  }
  const productCode = env.ESEWA_PRODUCT_CODE?.trim() || TEST_PRODUCT_CODE;
  if (!/^\S+$/.test(productCode)) errors.push("ESEWA_PRODUCT_CODE must not contain whitespace");
  // The key is taken as given: eSewa's own test key has punctuation in it.
  const secretKey = env.ESEWA_SECRET_KEY || TEST_SECRET_KEY;
  const failureData = env.ESEWA_SANDBOX_FAILURE_DATA?.trim() || "false";
  if (failureData !== "true" && failureData !== "false") {
    errors.push(`ESEWA_SANDBOX_FAILURE_DATA must be true or false, got "${failureData}"`);
  }
  if (errors.length > 0) return { errors };
  return {
    config: { host, port, productCode, secretKey, failureData: failureData === "true" },
    errors,
  };
}

const { config, errors } = readConfig(process.env);
if (!config) {
  for (const error of errors) console.error(`esewa-sandbox: ${error}`);
  process.exit(1);
}

const esewa = await createEsewaSandbox(config).catch((error: unknown) => {
  const reason = error instanceof Error ? error.message : String(error);
  console.error(`esewa-sandbox: cannot listen on ${config.host}:${config.port}: ${reason}`);
  process.exit(1);
});
const key =
  config.secretKey === TEST_SECRET_KEY ? "eSewa's published test key" : "ESEWA_SECRET_KEY";
console.log(
  [
    `eSewa sandbox listening on ${esewa.url} (product code ${esewa.productCode}, secret key: ${key})`,
    `  Form (ESEWA_FORM_URL):     POST ${esewa.formUrl}`,
    `  Status (ESEWA_STATUS_URL): GET  ${esewa.statusUrl}?product_code=&total_amount=&transaction_uuid=`,
    `  Payment pages: ${esewa.url}/pay/<transaction_uuid>`,
    `  Control API: ${esewa.url}/_sandbox/{payments,requests,status-checks,faults,reset}`,
  ].join("\n"),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`esewa-sandbox: ${signal}, closing`);
    esewa.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
