// `npm run demo`: the offline playground. Nothing needed but `npm ci`; Redis when REDIS_URL is set.
import { z } from "zod";
import { playgroundLogger } from "./log.js";
import { DEMO_METHODS, DEMO_PAYMENT_MODES } from "./payment-modes.js";
import { startPlayground } from "./playground.js";

const settings = z
  .object({
    DEMO_PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    DEMO_HOST: z.string().default("127.0.0.1"),
    REDIS_URL: z.string().optional(),
    LOG_LEVEL: z.string().default("warn"),
    // Empty counts as unset, as for the bot's own settings.
    DEMO_PAYMENT_MODE: z.preprocess(
      (value) => (value === "" ? undefined : value),
      z.enum(DEMO_PAYMENT_MODES).default("all"),
    ),
  })
  .safeParse(process.env);
if (!settings.success) {
  process.stderr.write(`Invalid demo settings: ${settings.error.message}\n`);
  process.exit(1);
}
const { DEMO_PORT, DEMO_HOST, REDIS_URL, LOG_LEVEL, DEMO_PAYMENT_MODE } = settings.data;

/** The start message's hint at the other payment modes. */
const OTHER_MODES =
  "DEMO_PAYMENT_MODE=all: eSewa, Khalti, Fonepay QR and a card; telegram: a test card; " +
  "khalti: Khalti's sandbox; esewa: eSewa's sandbox; fonepay: Fonepay's sandbox; none: nobody pays";

// Without REDIS_URL, an in-process stand-in; real deployments always use Redis.
const redis = REDIS_URL ? undefined : new (await import("ioredis-mock")).default();

const playground = await startPlayground({
  host: DEMO_HOST,
  port: DEMO_PORT,
  env: { ...process.env, LOG_LEVEL },
  paymentMode: DEMO_PAYMENT_MODE,
  redis,
  logger: playgroundLogger(LOG_LEVEL),
});
process.stdout.write(
  `Playground: ${playground.url}\n` +
    `Redis: ${REDIS_URL ? `the server at ${REDIS_URL} (keys under playground:)` : "an in-process stand-in, nothing kept after Ctrl+C (set REDIS_URL to use a Redis server)"}\n` +
    "Ledger: in memory\n" +
    `Payments: ${paymentsLine(playground)}\n` +
    "Press Ctrl+C to stop.\n",
);

function paymentsLine(started: typeof playground): string {
  if (DEMO_PAYMENT_MODE === "none") {
    return `none, everyone may top up (${OTHER_MODES})`;
  }
  const { khalti, esewa, fonepay } = started;
  const methods = DEMO_METHODS[DEMO_PAYMENT_MODE].map((method) => {
    if (method === "khalti" && khalti) {
      return `Khalti web checkout on the Khalti sandbox at ${khalti.sandbox.url}`;
    }
    if (method === "esewa" && esewa) {
      return (
        `eSewa ePay on the eSewa sandbox at ${esewa.sandbox.url} ` +
        `(merchant ${esewa.sandbox.productCode})`
      );
    }
    if (method === "fonepay" && fonepay) {
      return `Fonepay QR: pay a QR on the Fonepay sandbox's pages at ${fonepay.url}/ (the bank app)`;
    }
    return "Telegram Payments with a test card";
  });
  const site = khalti ?? esewa;
  const pages = [
    khalti && `Khalti's return page at ${khalti.publicUrl}/pay/khalti/return`,
    esewa && `eSewa's pay and return pages at ${esewa.publicUrl}/pay/esewa/`,
  ].filter((page) => page !== undefined);
  return (
    `${methods.join("; ")}\n` +
    (site ? `The bot's site: ${pages.join("; ")}\n` : "") +
    `(${OTHER_MODES})`
  );
}

const stop = async () => {
  await playground.close();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
