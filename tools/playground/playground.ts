// The offline playground: the provider sandbox, the Telegram emulator and the real bot in one
// process, with a web page that looks and behaves like a Telegram chat.
import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import type { LedgerTarget } from "../../src/adapters/ledger/connection.js";
import type { Logger } from "../../src/adapters/logger.js";
import { type App, createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { buildWebapp } from "../build-webapp.mjs";
import {
  createEsewaSandbox,
  TEST_SECRET_KEY as ESEWA_TEST_SECRET_KEY,
  type EsewaSandbox,
} from "../esewa-sandbox/server.js";
import { createFonepaySandbox, type FonepaySandbox } from "../fonepay-sandbox/server.js";
import { createKhaltiSandbox, type KhaltiSandbox } from "../khalti-sandbox/server.js";
import { createSandbox, type Sandbox } from "../sandbox/server.js";
import { createTelegramEmulator, type TelegramEmulator } from "../telegram-emulator/index.js";
import { DEMO_METHODS, type DemoPaymentMode } from "./payment-modes.js";
import { type Roles, startWeb, TELEGRAM_LINKS } from "./web.js";

export const DEMO_BOT_TOKEN = "5000000001:playground-bot-token";
const DEMO_BOT_USERNAME = "topup_playground_bot";
const DEMO_PROVIDER_TOKEN = "sandbox-token";
/** A test-mode payment provider token, as BotFather gives one (`…:TEST:…`). */
const DEMO_PAYMENT_TOKEN = "284685063:TEST:playground";
/** The Khalti sandbox's secret key: the bot sends it, the sandbox checks it. */
const DEMO_KHALTI_KEY = "playground-khalti-key";
/**
 * The Fonepay sandbox's merchant: not Fonepay's published test one, whose secret key ("fonepay")
 * the log's scrubber would strike out of every line naming the method.
 */
const DEMO_FONEPAY = {
  merchantCode: "playground01",
  username: "playground-fonepay",
  password: "playground-fonepay-password",
  secretKey: "playground-fonepay-key",
};

export const ROLES: Roles = {
  user: { id: 1001, chatId: 1001, first_name: "Asha", phone: "9851000002" },
  admin: { id: 1002, chatId: 1002, first_name: "Admin" },
  support: { id: 1003, chatId: -1000777, first_name: "Sam", group: "Support desk" },
};

export interface PlaygroundOptions {
  host: string;
  port: number;
  /** Environment for the bot (PROVIDER_API_VERSION, CURRENCY, ...); BOT_TOKEN etc. are set here. */
  env: NodeJS.ProcessEnv;
  /** How subscribers pay (`npm run demo`: DEMO_PAYMENT_MODE). */
  paymentMode: DemoPaymentMode;
  /** In-process storage when REDIS_URL is not set. */
  redis?: Redis;
  /** The ledger; in memory (PGlite) unless given (the browser tests: a PostgreSQL server). */
  ledger?: LedgerTarget;
  logger: Logger;
}

export interface Playground {
  url: string;
  sandbox: Sandbox;
  /** With Khalti (khalti, all): the Khalti sandbox the bot pays through, and the bot's site. */
  khalti?: LocalCheckout<KhaltiSandbox>;
  /** With eSewa (esewa, all): the eSewa sandbox the bot pays through, and the bot's site. */
  esewa?: LocalCheckout<EsewaSandbox>;
  /** With Fonepay (fonepay, all): the Fonepay sandbox, whose QR pages play the bank app. */
  fonepay?: FonepaySandbox;
  emulator: TelegramEmulator;
  close(): Promise<void>;
}

export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  // The page's address is known before anything starts: the pages link back to its chat.
  const reserved = options.port === 0 ? await reservePort(options.host) : undefined;
  const port = reserved?.port ?? options.port;
  const url = `http://${options.host === "0.0.0.0" ? "localhost" : options.host}:${port}`;
  // The page stands in for t.me: the bot's links into Telegram (TELEGRAM_LINK_ROOT) open its
  // chat, and so do the sandboxes' "Back to Telegram".
  const linkRoot = `${url}${TELEGRAM_LINKS}`;
  const chatUrl = `${linkRoot}/${DEMO_BOT_USERNAME}`;
  // The sandbox speaks the same zone as the bot is told the provider uses.
  const timeZone = options.env.PROVIDER_TIMEZONE || "Asia/Kathmandu";
  const sandbox = await createSandbox({ token: DEMO_PROVIDER_TOKEN, timeZone });
  const emulator = await createTelegramEmulator({
    bots: [{ token: DEMO_BOT_TOKEN, first_name: "Top-up Bot", username: DEMO_BOT_USERNAME }],
  });
  const { paymentMode } = options;
  const methods = DEMO_METHODS[paymentMode];
  // One bot site serves both Khalti's return page and eSewa's pages.
  const site = methods.some((method) => method === "khalti" || method === "esewa")
    ? await localSite()
    : undefined;
  const khalti =
    site && methods.includes("khalti")
      ? { ...site, sandbox: await createKhaltiSandbox({ secretKey: DEMO_KHALTI_KEY, chatUrl }) }
      : undefined;
  const esewa =
    site && methods.includes("esewa")
      ? { ...site, sandbox: await createEsewaSandbox({ chatUrl }) }
      : undefined;
  const fonepay = methods.includes("fonepay")
    ? await createFonepaySandbox({ ...DEMO_FONEPAY, chatUrl })
    : undefined;
  // The payment journal keeps what the ledger could not take: the ledger is in memory, so the
  // journal is the playground's own too, not a ./data in whatever folder it was started from.
  const journalDir = await mkdtemp(join(tmpdir(), "topup-playground-"));
  const config = loadConfig({
    CURRENCY: "NPR",
    REDIS_KEY_PREFIX: "playground:",
    ...(paymentMode === "none" && { TOPUP_USER_IDS: "*" }),
    ...options.env,
    ...paymentEnv(paymentMode, { khalti, esewa, fonepay }),
    PROVIDER_TIMEZONE: timeZone,
    PAYMENT_JOURNAL_DIR: journalDir,
    BOT_TOKEN: DEMO_BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.apiRoot,
    TELEGRAM_LINK_ROOT: linkRoot,
    TELEGRAM_POLL_TIMEOUT_SECONDS: "10",
    PROVIDER_BASE_URL: sandbox.baseUrl(),
    PROVIDER_TOKEN: DEMO_PROVIDER_TOKEN,
    ADMIN_USER_IDS: String(ROLES.admin.id),
    SUPPORT_CHAT_IDS: String(ROLES.support.chatId),
    // The support desk's agent is staff: only staff may look customers up.
    STAFF_USER_IDS: String(ROLES.support.id),
  });
  // The Mini App's page, as `npm run build:webapp` builds it, for the bot to serve at /app/.
  await buildWebapp();
  const app: App = createApp(config, options.logger, {
    redis: options.redis,
    ledger: options.ledger ?? { kind: "embedded", dataDir: null },
  });
  await site?.release();
  await app.start();
  await reserved?.release();
  const web: Server = await startWeb({
    host: options.host,
    port,
    emulator,
    sandbox,
    roles: ROLES,
    apiVersion: config.provider.version,
    paymentMode,
    botToken: DEMO_BOT_TOKEN,
    miniAppUrl: config.miniApp?.url,
  });
  return {
    url,
    sandbox,
    emulator,
    khalti,
    esewa,
    ...(fonepay && { fonepay }),
    async close() {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
      await app.stop();
      await emulator.close();
      await sandbox.close();
      await khalti?.sandbox.close();
      await esewa?.sandbox.close();
      await fonepay?.close();
      await rm(journalDir, { recursive: true, force: true });
    },
  };
}

/** The bot's own HTTP server for the payment systems' pages (on 127.0.0.1). */
interface LocalSite {
  port: number;
  /** The bot's PUBLIC_URL: http://127.0.0.1:<port>. */
  publicUrl: string;
}

/** A payment system's sandbox, and the bot's site for its pages. */
interface LocalCheckout<Sandbox> extends LocalSite {
  sandbox: Sandbox;
}

/**
 * The bot's payment settings for `mode`: the one place the playground says how the bot pays.
 * They come after the caller's environment: a PAYMENT_METHODS, PAYMENT_MODE or real provider
 * token in the shell must not change the journey the page shows.
 */
function paymentEnv(
  mode: DemoPaymentMode,
  sandboxes: {
    khalti?: LocalCheckout<KhaltiSandbox>;
    esewa?: LocalCheckout<EsewaSandbox>;
    fonepay?: FonepaySandbox | undefined;
  },
): NodeJS.ProcessEnv {
  if (mode === "none") return { PAYMENT_MODE: "none", PAYMENT_METHODS: undefined };
  const methods = DEMO_METHODS[mode];
  const { khalti, esewa, fonepay } = sandboxes;
  const site = khalti ?? esewa;
  return {
    PAYMENT_METHODS: methods.join(","),
    // Deprecated, and one in the shell would disagree with PAYMENT_METHODS.
    PAYMENT_MODE: undefined,
    ...(methods.includes("telegram") && { PAYMENT_PROVIDER_TOKEN: DEMO_PAYMENT_TOKEN }),
    ...(khalti && { KHALTI_SECRET_KEY: DEMO_KHALTI_KEY, KHALTI_BASE_URL: khalti.sandbox.url }),
    ...(esewa && {
      // eSewa's published test merchant, which the sandbox plays.
      ESEWA_PRODUCT_CODE: esewa.sandbox.productCode,
      ESEWA_SECRET_KEY: ESEWA_TEST_SECRET_KEY,
      ESEWA_FORM_URL: esewa.sandbox.formUrl,
      ESEWA_STATUS_URL: esewa.sandbox.statusUrl,
    }),
    ...(fonepay && {
      FONEPAY_MERCHANT_CODE: DEMO_FONEPAY.merchantCode,
      FONEPAY_USERNAME: DEMO_FONEPAY.username,
      FONEPAY_PASSWORD: DEMO_FONEPAY.password,
      FONEPAY_SECRET_KEY: DEMO_FONEPAY.secretKey,
      FONEPAY_API_URL: fonepay.apiUrl,
    }),
    // The bot's HTTP server, for the payment systems' pages; on this machine only.
    ...(site && {
      PUBLIC_URL: site.publicUrl,
      HTTP_PORT: String(site.port),
      HTTP_HOST: "127.0.0.1",
    }),
  };
}

/** A free port on 127.0.0.1 for the bot's pages, held until the bot is about to listen on it. */
async function localSite(): Promise<LocalSite & { release(): Promise<void> }> {
  const { port, release } = await reservePort();
  return { port, publicUrl: `http://127.0.0.1:${port}`, release };
}

/**
 * A free port, held by a listener of ours until `release()`: the sandboxes, the emulator and the
 * bot's own servers started meanwhile (each on a port the system picks) cannot take it.
 */
async function reservePort(
  host = "127.0.0.1",
): Promise<{ port: number; release(): Promise<void> }> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, host, resolve);
  });
  const address = probe.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { port, release: () => new Promise<void>((resolve) => probe.close(() => resolve())) };
}
