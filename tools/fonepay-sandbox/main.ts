// Standalone Fonepay sandbox (`npm run fonepay-sandbox`), configured from the environment, for
// running the bot against it by hand: point FONEPAY_API_URL here and pay on the QR's page.

import { createFonepaySandbox, TEST_MERCHANT } from "./server.js";

const host = process.env.FONEPAY_SANDBOX_HOST?.trim() || "127.0.0.1";
const port = Number(process.env.FONEPAY_SANDBOX_PORT?.trim() || "8093");
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`fonepay-sandbox: FONEPAY_SANDBOX_PORT must be an integer 0..65535`);
  process.exit(1);
}
const fonepay = await createFonepaySandbox({
  host,
  port,
  merchantCode: process.env.FONEPAY_MERCHANT_CODE || TEST_MERCHANT.merchantCode,
  username: process.env.FONEPAY_USERNAME || TEST_MERCHANT.username,
  password: process.env.FONEPAY_PASSWORD || TEST_MERCHANT.password,
  secretKey: process.env.FONEPAY_SECRET_KEY || TEST_MERCHANT.secretKey,
}).catch((error: unknown) => {
  console.error(`fonepay-sandbox: cannot listen on ${host}:${port}: ${String(error)}`);
  process.exit(1);
});
console.log(
  [
    `Fonepay sandbox listening on ${fonepay.url} (merchant code ${fonepay.merchantCode})`,
    `  FONEPAY_API_URL: ${fonepay.apiUrl}`,
    `  QR pages: ${fonepay.url}/qr/<prn>`,
    `  Control API: ${fonepay.url}/_sandbox/{payments,requests,faults,reset}`,
  ].join("\n"),
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    fonepay.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
