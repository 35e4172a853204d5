// Standalone sandbox (`npm run sandbox`), configured from the environment, for running the
// bot or a playground against it by hand.

import { createSandbox } from "./server.js";
import { isValidTimeZone } from "./time.js";
import { API_VERSIONS, SANDBOX_PROFILES, type SandboxProfile } from "./types.js";

interface StandaloneConfig {
  host: string;
  port: number;
  token: string;
  checkoutTtlMs: number;
  timeZone: string;
  profile: SandboxProfile;
}

function readConfig(env: NodeJS.ProcessEnv): { config?: StandaloneConfig; errors: string[] } {
  const errors: string[] = [];
  const host = env.SANDBOX_HOST?.trim() || "127.0.0.1";
  const port = Number(env.SANDBOX_PORT?.trim() || "8090");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    errors.push(`SANDBOX_PORT must be an integer 0..65535, got "${env.SANDBOX_PORT}"`);
  }
  const token = env.SANDBOX_TOKEN ?? "sandbox-token";
  if (!/^\S+$/.test(token)) errors.push("SANDBOX_TOKEN must be non-empty without whitespace");
  const ttlSeconds = Number(env.SANDBOX_CHECKOUT_TTL_SECONDS?.trim() || "300");
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    errors.push(
      `SANDBOX_CHECKOUT_TTL_SECONDS must be a positive number, got "${env.SANDBOX_CHECKOUT_TTL_SECONDS}"`,
    );
  }
  const timeZone = env.SANDBOX_TIMEZONE?.trim() || "UTC";
  if (!isValidTimeZone(timeZone)) {
    errors.push(`SANDBOX_TIMEZONE must be an IANA time zone, got "${timeZone}"`);
  }
  const wanted = env.SANDBOX_PROFILE?.trim() || "strict";
  const profile = SANDBOX_PROFILES.find((name) => name === wanted);
  if (!profile) {
    errors.push(`SANDBOX_PROFILE must be one of ${SANDBOX_PROFILES.join(", ")}, got "${wanted}"`);
  }
  if (errors.length > 0 || !profile) return { errors };
  return {
    config: { host, port, token, checkoutTtlMs: ttlSeconds * 1000, timeZone, profile },
    errors,
  };
}

const { config, errors } = readConfig(process.env);
if (!config) {
  for (const error of errors) console.error(`sandbox: ${error}`);
  process.exit(1);
}

const sandbox = await createSandbox(config).catch((error: unknown) => {
  const reason = error instanceof Error ? error.message : String(error);
  console.error(`sandbox: cannot listen on ${config.host}:${config.port}: ${reason}`);
  process.exit(1);
});
const lines = [
  `Provider sandbox listening on ${sandbox.origin} (time zone ${config.timeZone}, profile ${config.profile})`,
  ...API_VERSIONS.flatMap((version) => [
    `  ${version}: ${sandbox.baseUrl()}/api/third-party/${version}/<operation>`,
    `  ${version}: ${sandbox.baseUrl({ staging: true })}/api/third-party/${version}/<operation>`,
  ]),
  `  Authorization: Bearer ${config.token}`,
  `  Control API: ${sandbox.origin}/_sandbox/{directory,topups,requests,faults,reset,profile}`,
  "Test customers (code = cuid, mobile, STB or username):",
  ...sandbox.directory().map((entry) => {
    const connections = entry.connections.map((c) => `${c.service} ${c.id} (${c.status})`);
    return `  ${entry.cuid}  ${entry.mobile}  ${entry.name} [${entry.status}]: ${connections.join(", ") || "no connections"}`;
  }),
];
console.log(lines.join("\n"));

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`sandbox: ${signal}, closing`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
