// The configuration: every environment variable declared once, in one zod schema that also
// shapes the typed Config the rest of the code reads. Parsed once at start-up.
import { hkdfSync } from "node:crypto";
import { isValidTimeZone } from "./adapters/provider/datetime.js";
import { PROVIDER_API_VERSIONS } from "./adapters/provider/versions.js";
import { z } from "./adapters/zod.js";
import { minorUnitDigits } from "./domain/payment.js";
import { parseMinorUnits } from "./domain/provider-balance.js";
import { PAYMENT_METHODS, type PaymentMethod } from "./domain/purchase.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** An empty variable counts as unset: env files and compose often leave `NAME=` behind. */
const unsetIfEmpty = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const required = (what: string) => z.string({ error: `required: ${what}` });

/** A time of day as HH:MM in the provider's zone; unset: off. */
const timeOfDay = () =>
  z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, {
      error: "must be a time of day as HH:MM (24-hour, in PROVIDER_TIMEZONE), such as 07:30",
    })
    .transform((time) => ({ hour: Number(time.slice(0, 2)), minute: Number(time.slice(3)) }))
    .optional();

const wholeNumber = (fallback: number, min: number, max: number, unit: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a whole number of ${unit}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min} ${unit}` })
        .max(max, { error: `must be at most ${max} ${unit}` }),
    )
    .default(fallback);

const idList = (what: string) =>
  z
    .string()
    .regex(/^\s*-?\d+(\s*,\s*-?\d+)*\s*$/, {
      error: `must be a comma-separated list of numeric ${what}`,
    })
    .transform((list) => list.split(",").map((id) => Number(id.trim())))
    .default([]);

/**
 * Group and supergroup ids only (negative): a user's id here would make a private chat a staff
 * chat. A wrong entry is named by its position, never echoed.
 */
const groupIdList = () =>
  idList("Telegram chat ids").superRefine((ids, context) => {
    const wrong = ids.findIndex((id) => id >= 0);
    if (wrong >= 0) {
      context.addIssue({
        code: "custom",
        message: `entry ${wrong + 1} is not a group id: only groups and supergroups (negative ids) may be support chats`,
      });
    }
  });

/** Telegram user ids (positive); unset is not the same as empty here: undefined. */
const userIdList = () =>
  z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, {
      error: "must be a comma-separated list of numeric Telegram user ids",
    })
    .transform((list) => list.split(",").map((id) => Number(id.trim())))
    .optional();

const flag = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"], { error: "must be true or false" })
    .transform((value) => value === "true" || value === "1")
    .default(fallback);

const port = () =>
  z
    .string()
    .regex(/^\d+$/, { error: "must be a port number" })
    .transform(Number)
    .pipe(z.number().min(1).max(65_535, { error: "must be a port number" }))
    .optional();

const url = (what: string) =>
  z.url({ protocol: /^https?$/, error: `must be an http(s) URL (${what})` });

/**
 * An address others reach this bot at, or one the bot sends secrets to (Fonepay's API: the
 * username and password travel in every body): https, plain http only on this machine (a
 * sandbox).
 */
const secureAddress = () =>
  z.string().refine(
    (address) => {
      const parsed = URL.canParse(address) ? new URL(address) : undefined;
      return (
        parsed?.protocol === "https:" ||
        (parsed?.protocol === "http:" &&
          ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname))
      );
    },
    { error: "must be an https:// URL (http:// only for localhost, 127.0.0.1 or ::1)" },
  );

const variables = z.object({
  BOT_TOKEN: required("the bot token from @BotFather").pipe(
    z.string().regex(/^\d+:\S+$/, { error: "does not look like a bot token (<id>:<secret>)" }),
  ),
  TELEGRAM_API_ROOT: url("the Telegram Bot API root").default("https://api.telegram.org"),
  // Where links into Telegram start: the pages' "Back to Telegram" is <root>/<bot username>.
  TELEGRAM_LINK_ROOT: url("where links into Telegram start").default("https://t.me"),
  PROVIDER_BASE_URL: required("the provider's base URL").pipe(url("the provider's base URL")),
  PROVIDER_API_VERSION: z
    .enum(PROVIDER_API_VERSIONS, {
      error: `must be one of ${PROVIDER_API_VERSIONS.join(", ")}`,
    })
    .default("v1.0.1"),
  PROVIDER_TOKEN: required("the provider's bearer token"),
  PROVIDER_TIMEOUT_MS: wholeNumber(15_000, 100, 300_000, "milliseconds"),
  PROVIDER_READ_RETRIES: wholeNumber(2, 0, 10, "retries"),
  PROVIDER_MAX_CONNECTIONS: wholeNumber(64, 1, 1_024, "connections"),
  CHECKOUT_TTL_SECONDS: wholeNumber(300, 1, 86_400, "seconds"),
  PROVIDER_TIMEZONE: z
    .string()
    .refine(isValidTimeZone, { error: "must be an IANA time zone name such as Asia/Kathmandu" })
    .default("UTC"),
  CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, { error: "must be a three-letter ISO 4217 code such as NPR" })
    .optional(),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" })
    .default("redis://127.0.0.1:6379"),
  DATABASE_URL: z
    .url({
      protocol: /^postgres(ql)?$/,
      error: "must be a postgres:// or postgresql:// URL (TLS through ?sslmode=require)",
    })
    .optional(),
  DATABASE_POOL_SIZE: wholeNumber(10, 2, 500, "connections"),
  DATABASE_STATEMENT_TIMEOUT_MS: wholeNumber(5_000, 100, 600_000, "milliseconds"),
  DATA_DIR: z.string().default("./data"),
  PAYMENT_JOURNAL_DIR: z.string().optional(),
  PAYMENT_JOURNAL_KEY: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
  PAYMENT_METHODS: z
    .string()
    .transform((list, context) => {
      const methods = list.split(",").map((method) => method.trim());
      const known = (method: string): method is PaymentMethod =>
        (PAYMENT_METHODS as readonly string[]).includes(method);
      if (!methods.every(known) || new Set(methods).size !== methods.length) {
        context.addIssue({
          code: "custom",
          message: `must be a comma-separated list of ${PAYMENT_METHODS.join(", ")}, each once`,
        });
        return z.NEVER;
      }
      return methods;
    })
    .optional(),
  /** Deprecated for PAYMENT_METHODS (one release): a single method, or none. */
  PAYMENT_MODE: z
    .enum(["none", ...PAYMENT_METHODS], {
      error: `must be none or one of ${PAYMENT_METHODS.join(", ")} (deprecated: use PAYMENT_METHODS)`,
    })
    .optional(),
  PAYMENT_PROVIDER_TOKEN: z.string().optional(),
  KHALTI_SECRET_KEY: z.string().optional(),
  KHALTI_BASE_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .default("https://khalti.com"),
  // A Khalti link is watched this long after its expires_at, read with our clock (clock skew).
  KHALTI_EXPIRY_MARGIN_SECONDS: wholeNumber(600, 0, 86_400, "seconds"),
  ESEWA_PRODUCT_CODE: z
    .string()
    .regex(/^\S+$/, { error: "must be eSewa's product code (merchant code), no spaces" })
    .optional(),
  ESEWA_SECRET_KEY: z.string().optional(),
  ESEWA_FORM_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .default("https://epay.esewa.com.np/api/epay/main/v2/form"),
  ESEWA_STATUS_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .default("https://epay.esewa.com.np/api/epay/transaction/status/"),
  // eSewa publishes no expiry for a posted form: how long one is watched after it was served.
  ESEWA_OFFER_MINUTES: wholeNumber(60, 1, 1_440, "minutes"),
  FONEPAY_MERCHANT_CODE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,50}$/, {
      error: "must be Fonepay's merchant code: letters, digits, _ or -",
    })
    .optional(),
  FONEPAY_USERNAME: z.string().optional(),
  FONEPAY_PASSWORD: z.string().optional(),
  FONEPAY_SECRET_KEY: z.string().optional(),
  // The username and password travel in every body: https only (http for a local sandbox).
  FONEPAY_API_URL: secureAddress().optional(),
  // Fonepay publishes no expiry for a dynamic QR: how long one is taken to stay payable once made.
  FONEPAY_OFFER_MINUTES: wholeNumber(60, 1, 1_440, "minutes"),
  // Fonepay's own samples disagree on the dataValidation's hex case (Java upper, examples lower).
  FONEPAY_SIGNATURE_CASE: z
    .enum(["lower", "upper"], { error: "must be lower or upper" })
    .default("lower"),
  PUBLIC_URL: secureAddress().optional(),
  PAYMENT_WINDOW_SECONDS: wholeNumber(900, 1, 86_400, "seconds"),
  PAYMENT_CHECK_SECONDS: wholeNumber(10, 1, 3_600, "seconds"),
  // A Telegram pre-checkout this close to the window's end is refused (at most a quarter of it).
  PAYMENT_CLOSING_SECONDS: wholeNumber(60, 0, 3_600, "seconds"),
  // An awaiting Telegram invoice ends "not paid" only this long after its window.
  TELEGRAM_PAYMENT_GRACE_SECONDS: wholeNumber(300, 0, 3_600, "seconds"),
  TOPUP_USER_IDS: z
    .string()
    .regex(/^\s*(\*|\d+(\s*,\s*\d+)*)\s*$/, {
      error: "must be * or a comma-separated list of numeric Telegram user ids",
    })
    .transform((list) =>
      list.trim() === "*" ? ("everyone" as const) : list.split(",").map((id) => Number(id.trim())),
    )
    .optional(),
  ADMIN_USER_IDS: idList("Telegram user ids"),
  DAILY_REPORT_AT: timeOfDay(),
  RECONCILE_AT: timeOfDay(),
  RECONCILE_RATE_PER_SECOND: wholeNumber(5, 1, 100, "calls a second"),
  RECONCILE_LEASE_SECONDS: wholeNumber(60, 1, 3_600, "seconds"),
  SUPPORT_CHAT_IDS: groupIdList(),
  STAFF_USER_IDS: userIdList(),
  REFUND_USER_IDS: userIdList(),
  STAFF_ROLE_CACHE_SECONDS: wholeNumber(300, 0, 3_600, "seconds"),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,40}$/, { error: "must be 1-40 letters, digits or _ : . -" })
    .default("topup:"),
  SESSION_IDLE_SECONDS: wholeNumber(1_800, 1, 604_800, "seconds"),
  CHECKOUT_SAFETY_MARGIN_SECONDS: wholeNumber(30, 0, 3_600, "seconds"),
  TOPUP_VERIFY_WINDOW_SECONDS: wholeNumber(120, 1, 3_600, "seconds"),
  TOPUP_LOCK_SECONDS: wholeNumber(15, 1, 600, "seconds"),
  RECONCILE_INTERVAL_SECONDS: wholeNumber(5, 1, 3_600, "seconds"),
  REMINDER_DAYS_BEFORE: z
    .string()
    .regex(/^\s*\d{1,3}(\s*,\s*\d{1,3})*\s*$/, {
      error: "must be a comma-separated list of whole days, such as 3,1",
    })
    .transform((list) => [...new Set(list.split(",").map((day) => Number(day.trim())))])
    .default([3, 1]),
  REMINDERS_PER_USER: wholeNumber(20, 1, 1_000, "reminders"),
  TELEGRAM_RETRY_ATTEMPTS: wholeNumber(3, 0, 20, "attempts"),
  TELEGRAM_POLL_TIMEOUT_SECONDS: wholeNumber(30, 0, 50, "seconds"),
  BROADCAST_RATE: wholeNumber(25, 1, 1_000, "messages per second"),
  BROADCAST_PROGRESS_SECONDS: wholeNumber(3, 1, 600, "seconds"),
  BROADCAST_LOCK_SECONDS: wholeNumber(30, 1, 600, "seconds"),
  REDIS_COMMAND_TIMEOUT_MS: wholeNumber(2_000, 50, 60_000, "milliseconds"),
  REDIS_REQUIRE_DURABLE: flag(false),
  PROVIDER_ALERT_AFTER: wholeNumber(5, 1, 1_000, "failed calls"),
  PROVIDER_PROBE_SECONDS: wholeNumber(15, 1, 3_600, "seconds"),
  ALERT_REPEAT_MINUTES: wholeNumber(30, 1, 10_080, "minutes"),
  WEBHOOK_URL: secureAddress().optional(),
  WEBHOOK_SECRET: z
    .string()
    // Long enough not to be guessed; the characters Telegram allows.
    .regex(/^[A-Za-z0-9_-]{32,256}$/, {
      error: "must be 32-256 characters of A-Z a-z 0-9 _ - (Telegram's characters)",
    })
    .optional(),
  HTTP_HOST: z.string().default("0.0.0.0"),
  HTTP_PORT: port(),
  HTTP_HEADERS_TIMEOUT_MS: wholeNumber(10_000, 100, 120_000, "milliseconds"),
  HTTP_REQUEST_TIMEOUT_MS: wholeNumber(30_000, 100, 600_000, "milliseconds"),
  HTTP_MAX_CONNECTIONS: wholeNumber(1_000, 1, 100_000, "connections"),
  HTTP_MAX_CONNECTIONS_PER_CLIENT: wholeNumber(100, 1, 100_000, "connections"),
  HTTP_KEEP_ALIVE_SECONDS: wholeNumber(5, 1, 600, "seconds"),
  METRICS_PORT: port(),
  METRICS_HOST: z.string().default("127.0.0.1"),
  METRICS_TOKEN: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
  RETURN_PAGE_LIMIT: wholeNumber(30, 1, 100_000, "requests per minute"),
  // One offer asked on demand (its pages, "I have paid") at most once this long.
  RETURN_PAGE_LOOKUP_MS: wholeNumber(5_000, 0, 600_000, "milliseconds"),
  // The Mini App's initData is believed this long after Telegram signed it (its auth_date).
  MINI_APP_AUTH_MAX_AGE_SECONDS: wholeNumber(3_600, 1, 86_400, "seconds"),
  SHUTDOWN_GRACE_SECONDS: wholeNumber(25, 1, 3_600, "seconds"),
  POLLING_LEASE_SECONDS: wholeNumber(10, 2, 300, "seconds"),
  POLLING_CONCURRENCY: wholeNumber(5_000, 1, 100_000, "updates"),
  REDIS_SENTINELS: z
    .string()
    .regex(/^\s*[^\s,:]+:\d+(\s*,\s*[^\s,:]+:\d+)*\s*$/, {
      error: "must be a comma-separated list of host:port",
    })
    .transform((list) =>
      list.split(",").map((entry) => {
        const [host = "", portNumber = ""] = entry.trim().split(":");
        return { host, port: Number(portNumber) };
      }),
    )
    .optional(),
  REDIS_SENTINEL_NAME: z.string().default("mymaster"),
  LOOKUP_LIMIT: wholeNumber(20, 0, 10_000, "lookups"),
  LOOKUP_LIMIT_MINUTES: wholeNumber(10, 1, 1_440, "minutes"),
  LOOKUP_BUDGET_PER_HOUR: wholeNumber(1_000, 0, 1_000_000, "lookups"),
  BALANCE_ALERT_BELOW: z.string().optional(),
  BALANCE_STOP_BELOW: z.string().optional(),
  FLOOD_LIMIT: wholeNumber(30, 1, 1_000, "updates"),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` })
    .default("info"),
});

type Variables = z.output<typeof variables>;

/** A listed method's variable: missing (what it is), or set to what the method cannot use. */
type MethodProblem = [name: keyof Variables, problem: { missing: string } | { wrong: string }];

const missing = (e: Variables, needs: Partial<Record<keyof Variables, string>>) =>
  Object.entries(needs).flatMap(([name, what]): MethodProblem[] =>
    e[name as keyof Variables] === undefined
      ? [[name as keyof Variables, { missing: what ?? "" }]]
      : [],
  );

/** What each payment method needs of the configuration, checked only when it is listed. */
const METHOD_NEEDS: Record<PaymentMethod, (e: Variables) => MethodProblem[]> = {
  telegram: (e) => [
    ...missing(e, {
      PAYMENT_PROVIDER_TOKEN: "the payment provider token BotFather gives (Bot Settings, Payments)",
      CURRENCY:
        "the ISO 4217 code subscribers pay in, the provider's prices' currency (such as NPR)",
    }),
    ...(e.CURRENCY !== undefined && minorUnitDigits(e.CURRENCY) === null
      ? [
          [
            "CURRENCY",
            { wrong: `${e.CURRENCY}: not a currency this platform knows (ISO 4217)` },
          ] as MethodProblem,
        ]
      : []),
  ],
  khalti: (e) => [
    ...missing(e, {
      KHALTI_SECRET_KEY: "the secret key from Khalti's merchant dashboard",
      PUBLIC_URL: "the https address of this bot's HTTP server (Khalti sends buyers back to it)",
    }),
    ...(e.HTTP_PORT === undefined && e.WEBHOOK_URL === undefined
      ? missing(e, {
          HTTP_PORT: "the port of the HTTP server that serves Khalti's return page",
        })
      : []),
    ...(e.CURRENCY !== undefined && e.CURRENCY !== "NPR"
      ? [["CURRENCY", { wrong: `${e.CURRENCY}: Khalti takes NPR only` }] as MethodProblem]
      : []),
  ],
  esewa: (e) => [
    ...missing(e, {
      ESEWA_PRODUCT_CODE: "eSewa's product code (merchant code) for ePay v2",
      ESEWA_SECRET_KEY: "eSewa's secret key for ePay v2 signatures",
      PUBLIC_URL:
        "the https address of this bot's HTTP server (the eSewa pay page, and eSewa sends buyers back to it)",
    }),
    ...(e.HTTP_PORT === undefined && e.WEBHOOK_URL === undefined
      ? missing(e, { HTTP_PORT: "the port of the HTTP server that serves the eSewa pages" })
      : []),
    ...(e.CURRENCY !== undefined && e.CURRENCY !== "NPR"
      ? [["CURRENCY", { wrong: `${e.CURRENCY}: eSewa takes NPR only` }] as MethodProblem]
      : []),
  ],
  fonepay: (e) => [
    ...missing(e, {
      FONEPAY_MERCHANT_CODE:
        "the merchant code Fonepay gives at onboarding (through the acquiring bank)",
      FONEPAY_USERNAME: "the API username Fonepay gives with the merchant code",
      FONEPAY_PASSWORD: "the API password Fonepay gives with the merchant code",
      FONEPAY_SECRET_KEY: "the secret key of the dataValidation signatures (HMAC-SHA512)",
      FONEPAY_API_URL:
        "Fonepay's merchant API, https (test https://uat-new-merchant-api.fonepay.com/api, live https://merchantapi.fonepay.com/api)",
    }),
    ...(e.CURRENCY !== undefined && e.CURRENCY !== "NPR"
      ? [["CURRENCY", { wrong: `${e.CURRENCY}: Fonepay takes NPR only` }] as MethodProblem]
      : []),
  ],
};

/** The methods offered, in the buyer's order: PAYMENT_METHODS, else the deprecated mode's one. */
function listedMethods(e: Variables): PaymentMethod[] {
  if (e.PAYMENT_METHODS !== undefined) return e.PAYMENT_METHODS;
  return e.PAYMENT_MODE === undefined || e.PAYMENT_MODE === "none" ? [] : [e.PAYMENT_MODE];
}

const environment = variables
  // Named with every other problem: the payment methods are a decision, never a default.
  .superRefine(
    (e, context) => {
      if (e.PAYMENT_METHODS === undefined && e.PAYMENT_MODE === undefined) {
        context.addIssue({
          code: "custom",
          path: ["PAYMENT_METHODS"],
          message: `required: a comma-separated list of ${PAYMENT_METHODS.join(", ")} (the buyer's buttons in that order), or PAYMENT_MODE=none (nobody pays in the bot; top-ups for TOPUP_USER_IDS only)`,
        });
      }
    },
    { when: () => true },
  )
  .superRefine((e, context) => {
    const methods = listedMethods(e);
    if (e.PAYMENT_METHODS !== undefined && e.PAYMENT_MODE !== undefined) {
      const agree = e.PAYMENT_METHODS.length === 1 && e.PAYMENT_METHODS[0] === e.PAYMENT_MODE;
      if (!agree) {
        context.addIssue({
          code: "custom",
          path: ["PAYMENT_MODE"],
          message:
            "disagrees with PAYMENT_METHODS: set PAYMENT_METHODS alone (PAYMENT_MODE is deprecated; PAYMENT_MODE=none cannot be combined with payment methods)",
        });
      }
    }
    for (const method of methods) {
      for (const [name, problem] of METHOD_NEEDS[method](e)) {
        context.addIssue({
          code: "custom",
          path: [name],
          message:
            "missing" in problem
              ? `required with PAYMENT_METHODS listing ${method}: ${problem.missing}`
              : problem.wrong,
        });
      }
    }
    if (e.PAYMENT_MODE === "none" && e.TOPUP_USER_IDS === undefined) {
      context.addIssue({
        code: "custom",
        path: ["TOPUP_USER_IDS"],
        message:
          "required with PAYMENT_MODE=none: the Telegram user ids allowed to top up (the operator pays the provider for them), or * for everyone",
      });
    }
    if (e.METRICS_PORT !== undefined && e.HTTP_PORT === undefined) {
      // Before, METRICS_PORT was the public server's port: such a deployment would lose it.
      context.addIssue({
        code: "custom",
        path: ["METRICS_PORT"],
        message:
          "now opens only the metrics listener (on METRICS_HOST, 127.0.0.1 unless set); set HTTP_PORT too for the webhook, health checks and return page (what METRICS_PORT used to open)",
      });
    }
    if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.HTTP_PORT) {
      context.addIssue({
        code: "custom",
        path: ["METRICS_PORT"],
        message: "must differ from HTTP_PORT (for /metrics on the public port set METRICS_TOKEN)",
      });
    }
    if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
      context.addIssue({
        code: "custom",
        path: ["HTTP_HEADERS_TIMEOUT_MS"],
        message: "must not be longer than HTTP_REQUEST_TIMEOUT_MS",
      });
    }
    for (const name of ["BALANCE_ALERT_BELOW", "BALANCE_STOP_BELOW"] as const) {
      if (e[name] !== undefined && balanceAmount(e, name) === undefined) {
        context.addIssue({
          code: "custom",
          path: [name],
          message: `must be an amount in the currency, such as 50000 or 50000.50 (at most ${balanceDigits(e)} decimals)`,
        });
      }
    }
    if (e.WEBHOOK_URL !== undefined && e.WEBHOOK_SECRET === undefined) {
      context.addIssue({
        code: "custom",
        path: ["WEBHOOK_SECRET"],
        message: "required with WEBHOOK_URL (Telegram sends it back with every update)",
      });
    }
  });

/** The names of every variable the bot reads (docs/operations.md's table lists exactly these). */
export const CONFIG_VARIABLES = Object.keys(variables.shape);

/**
 * The public HTTP server (webhook, health, return page; metrics only with METRICS_TOKEN):
 * webhook mode needs it, on 8080 unless told.
 */
function httpServer(e: z.output<typeof environment>) {
  const port = e.HTTP_PORT ?? (e.WEBHOOK_URL ? 8080 : undefined);
  return port === undefined
    ? undefined
    : {
        port,
        host: e.HTTP_HOST,
        headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
        requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_SECONDS * 1000,
        maxConnections: e.HTTP_MAX_CONNECTIONS,
        // Telegram opens up to 40 webhook connections from a few addresses: only busy ones
        // count against an address, idle ones make room.
        maxConnectionsPerClient: e.HTTP_MAX_CONNECTIONS_PER_CLIENT,
        metricsToken: e.METRICS_TOKEN,
      };
}

/**
 * The Mini App (the shop at PUBLIC_URL/app) needs an address Telegram opens and the HTTP server
 * that answers there: without either, the bot is chat only.
 */
function miniAppSettings(e: z.output<typeof environment>) {
  if (e.PUBLIC_URL === undefined || httpServer(e) === undefined) return undefined;
  return {
    url: new URL(`${MINI_APP_PATH}/`, e.PUBLIC_URL).toString(),
    authMaxAgeSeconds: e.MINI_APP_AUTH_MAX_AGE_SECONDS,
  };
}

/** Where the Mini App is served, under PUBLIC_URL; its API is under `${MINI_APP_PATH}/api/`. */
export const MINI_APP_PATH = "/app";

/** Metrics on a listener of their own, off the public address by default. */
function metricsServer(e: z.output<typeof environment>) {
  return e.METRICS_PORT === undefined
    ? undefined
    : {
        port: e.METRICS_PORT,
        host: e.METRICS_HOST,
        headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
        requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_SECONDS * 1000,
        maxConnections: e.HTTP_MAX_CONNECTIONS,
      };
}

/** The ledger's database: PostgreSQL when DATABASE_URL is set, else embedded in DATA_DIR. */
function ledgerTarget(e: z.output<typeof ledgerVariables>) {
  return e.DATABASE_URL
    ? {
        kind: "postgres" as const,
        url: e.DATABASE_URL,
        poolSize: e.DATABASE_POOL_SIZE,
        statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      }
    : { kind: "embedded" as const, dataDir: e.DATA_DIR as string | null };
}

/** What `npm run migrate` needs: the ledger and the log, nothing of Telegram or the provider. */
const ledgerVariables = variables.pick({
  DATABASE_URL: true,
  DATABASE_POOL_SIZE: true,
  DATABASE_STATEMENT_TIMEOUT_MS: true,
  DATA_DIR: true,
  LOG_LEVEL: true,
});

/** The variables whose values are secrets: scrubbed from every log line. */
const SECRET_VARIABLES = [
  "BOT_TOKEN",
  "PROVIDER_TOKEN",
  "PAYMENT_PROVIDER_TOKEN",
  "KHALTI_SECRET_KEY",
  "ESEWA_SECRET_KEY",
  "FONEPAY_PASSWORD",
  "FONEPAY_SECRET_KEY",
  "WEBHOOK_SECRET",
  "PAYMENT_JOURNAL_KEY",
] as const;

/** The variables holding a connection URL, whose password is a secret. */
const CONNECTION_URL_VARIABLES = ["DATABASE_URL", "REDIS_URL"] as const;

/**
 * A connection URL's password, in the userinfo (`redis://:pw@host`) or as pg's `?password=`,
 * as written there (the scrubber adds the decoded form), with the user it goes with: a URL
 * in a driver's message then shows neither. The user alone is no secret, and a short one
 * ("u", "bot") scrubbed from every line would garble the log.
 */
function urlPasswords(name: string, value: string | undefined): [string, string][] {
  const url = value ? URL.parse(value) : null;
  const found: [string, string][] = [];
  if (url?.password) {
    found.push([`${name} password`, url.password]);
    found.push([`${name} user and password`, `${url.username}:${url.password}`]);
  }
  const parameter = url && /[?&]password=([^&#]*)/.exec(url.search)?.[1];
  if (parameter) found.push([`${name} password parameter`, parameter]);
  return found;
}

/** The secrets set in these variables, by name: the one list every logger scrubs. */
export function secretsOf(
  env: {
    [name in (typeof SECRET_VARIABLES | typeof CONNECTION_URL_VARIABLES)[number]]?: string;
  },
): Record<string, string> {
  return Object.fromEntries([
    ...SECRET_VARIABLES.flatMap((name) => (env[name] ? [[name, env[name]]] : [])),
    ...CONNECTION_URL_VARIABLES.flatMap((name) => urlPasswords(name, env[name])),
  ]);
}

const schema = environment.transform((e) => ({
  botToken: e.BOT_TOKEN,
  secrets: Object.values(secretsOf(e)),
  telegramApiRoot: e.TELEGRAM_API_ROOT.replace(/\/+$/, ""),
  telegramLinkRoot: e.TELEGRAM_LINK_ROOT.replace(/\/+$/, ""),
  provider: {
    baseUrl: e.PROVIDER_BASE_URL.replace(/\/+$/, ""),
    version: e.PROVIDER_API_VERSION,
    token: e.PROVIDER_TOKEN,
    timeoutMs: e.PROVIDER_TIMEOUT_MS,
    readRetries: e.PROVIDER_READ_RETRIES,
    maxConnections: e.PROVIDER_MAX_CONNECTIONS,
    checkoutTtlSeconds: e.CHECKOUT_TTL_SECONDS,
    timeZone: e.PROVIDER_TIMEZONE,
  },
  currency: e.CURRENCY,
  redis: {
    url: e.REDIS_URL,
    keyPrefix: e.REDIS_KEY_PREFIX,
    commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    requireDurable: e.REDIS_REQUIRE_DURABLE,
    sentinels: e.REDIS_SENTINELS,
    sentinelName: e.REDIS_SENTINEL_NAME,
  },
  ledger: ledgerTarget(e),
  /** This instance's own files: the embedded ledger, the payment journal. */
  dataDir: e.DATA_DIR,
  paymentJournal: {
    /** Its folder: DATA_DIR unless told (a disk other than the embedded ledger's). */
    dir: e.PAYMENT_JOURNAL_DIR ?? e.DATA_DIR,
    /** The key of its lines' MACs: a secret outside the folder, never logged. */
    key: journalKey(e),
  },
  providerHealth: {
    failuresToOpen: e.PROVIDER_ALERT_AFTER,
    probeAfterMs: e.PROVIDER_PROBE_SECONDS * 1000,
    alertRepeatMs: e.ALERT_REPEAT_MINUTES * 60_000,
  },
  sessionIdleMs: e.SESSION_IDLE_SECONDS * 1000,
  reminderDaysBefore: e.REMINDER_DAYS_BEFORE,
  remindersPerUser: e.REMINDERS_PER_USER,
  topup: {
    checkoutSafetyMarginMs: e.CHECKOUT_SAFETY_MARGIN_SECONDS * 1000,
    verifyWindowMs: e.TOPUP_VERIFY_WINDOW_SECONDS * 1000,
    lockTtlMs: e.TOPUP_LOCK_SECONDS * 1000,
    reconcileIntervalMs: e.RECONCILE_INTERVAL_SECONDS * 1000,
  },
  telegram: {
    retryAttempts: e.TELEGRAM_RETRY_ATTEMPTS,
    pollTimeoutSeconds: e.TELEGRAM_POLL_TIMEOUT_SECONDS,
  },
  http: httpServer(e),
  metricsHttp: metricsServer(e),
  returnPage: {
    perClientPerMinute: e.RETURN_PAGE_LIMIT,
    lookupIntervalMs: e.RETURN_PAGE_LOOKUP_MS,
  },
  miniApp: miniAppSettings(e),
  webhook:
    e.WEBHOOK_URL && e.WEBHOOK_SECRET
      ? { url: e.WEBHOOK_URL, secret: e.WEBHOOK_SECRET }
      : undefined,
  shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
  pollingLeaseMs: e.POLLING_LEASE_SECONDS * 1000,
  pollingConcurrency: e.POLLING_CONCURRENCY,
  limits: {
    lookups: e.LOOKUP_LIMIT,
    lookupWindowMs: e.LOOKUP_LIMIT_MINUTES * 60_000,
    lookupBudgetPerHour: e.LOOKUP_BUDGET_PER_HOUR,
    updatesPerWindow: e.FLOOD_LIMIT,
  },
  broadcast: {
    ratePerSecond: e.BROADCAST_RATE,
    progressIntervalMs: e.BROADCAST_PROGRESS_SECONDS * 1000,
    lockMs: e.BROADCAST_LOCK_SECONDS * 1000,
  },
  /** Who may top up: with PAYMENT_MODE=none nobody pays in the bot, so only these users. */
  topupUsers: listedMethods(e).length === 0 ? (e.TOPUP_USER_IDS ?? []) : ("everyone" as const),
  payment: paymentSettings(e),
  adminUserIds: e.ADMIN_USER_IDS,
  /** The admins are alerted once when the provider balance expected falls below; minor units. */
  balanceAlertBelowMinor: balanceAmount(e, "BALANCE_ALERT_BELOW"),
  /** A purchase that would take the expected balance below this is refused; minor units. */
  balanceStopBelowMinor: balanceAmount(e, "BALANCE_STOP_BELOW"),
  /** Yesterday's report to every admin at this time of day; undefined: off. */
  dailyReportAt: e.DAILY_REPORT_AT,
  reconciliation: {
    /** Yesterday's reconciliation, sent to every admin, at this time of day; undefined: off. */
    at: e.RECONCILE_AT,
    /** Calls to the outside parties a second, all together, retries included. */
    ratePerSecond: e.RECONCILE_RATE_PER_SECOND,
    /** A run whose instance wrote nothing for this long is taken over by another. */
    leaseMs: e.RECONCILE_LEASE_SECONDS * 1000,
  },
  supportChatIds: e.SUPPORT_CHAT_IDS,
  roles: {
    /** undefined: the support groups' own administrators are staff. */
    staffUserIds: e.STAFF_USER_IDS,
    refundUserIds: e.REFUND_USER_IDS ?? [],
    groupAdminsCacheMs: e.STAFF_ROLE_CACHE_SECONDS * 1000,
  },
  logLevel: e.LOG_LEVEL,
}));

export type Config = z.output<typeof schema>;

/** What the key derived from BOT_TOKEN is for: a key of its own, not the token itself. */
const JOURNAL_KEY_LABEL = "topup-bot payment journal MAC key v1";

/** PAYMENT_JOURNAL_KEY as given, else a key derived from BOT_TOKEN (HKDF-SHA256). */
function journalKey(e: Variables): Uint8Array {
  if (e.PAYMENT_JOURNAL_KEY !== undefined) return Buffer.from(e.PAYMENT_JOURNAL_KEY, "utf8");
  return new Uint8Array(hkdfSync("sha256", e.BOT_TOKEN, "", JOURNAL_KEY_LABEL, 32));
}

/** The provider balance's decimals: the payment currency's, as /balance reads amounts. */
function balanceDigits(e: Variables): number {
  return paymentSettings(e)?.minorDigits ?? 2;
}

function balanceAmount(
  e: Variables,
  name: "BALANCE_ALERT_BELOW" | "BALANCE_STOP_BELOW",
): bigint | undefined {
  const text = e[name];
  if (text === undefined) return undefined;
  return parseMinorUnits(text, balanceDigits(e)) ?? undefined;
}

/** How subscribers pay: undefined when nobody pays in the bot. */
function paymentSettings(e: Variables): PaymentSettings | undefined {
  const methods = listedMethods(e).flatMap((method) => {
    const settings = METHOD_SETTINGS[method](e);
    return settings ? [settings] : [];
  });
  const first = methods[0];
  if (!first) return undefined;
  // Khalti, eSewa and Fonepay take NPR in paisa; Telegram's invoices ask in CURRENCY (NPR where listed with them).
  const currency = e.CURRENCY ?? "NPR";
  return {
    methods,
    currency,
    minorDigits: minorUnitDigits(currency) ?? 2,
    windowMs: e.PAYMENT_WINDOW_SECONDS * 1000,
    checkMs: e.PAYMENT_CHECK_SECONDS * 1000,
    // Never more than a quarter of the window: a short window stays payable.
    closingMs: Math.min(e.PAYMENT_CLOSING_SECONDS * 1000, (e.PAYMENT_WINDOW_SECONDS * 1000) / 4),
    graceMs: e.TELEGRAM_PAYMENT_GRACE_SECONDS * 1000,
    // Said in the log at start, for one release.
    ...(e.PAYMENT_METHODS === undefined && { deprecatedMode: first.method }),
  };
}

/** Each listed method's own settings (its variables checked above). */
const METHOD_SETTINGS: {
  [M in PaymentMethod]: (e: Variables) => Extract<MethodSettings, { method: M }> | undefined;
} = {
  telegram: (e) =>
    e.PAYMENT_PROVIDER_TOKEN
      ? { method: "telegram", providerToken: e.PAYMENT_PROVIDER_TOKEN }
      : undefined,
  khalti: (e) =>
    e.KHALTI_SECRET_KEY && e.PUBLIC_URL
      ? {
          method: "khalti",
          secretKey: e.KHALTI_SECRET_KEY,
          baseUrl: e.KHALTI_BASE_URL,
          publicUrl: e.PUBLIC_URL,
          expiryMarginMs: e.KHALTI_EXPIRY_MARGIN_SECONDS * 1000,
        }
      : undefined,
  esewa: (e) =>
    e.ESEWA_PRODUCT_CODE && e.ESEWA_SECRET_KEY && e.PUBLIC_URL
      ? {
          method: "esewa",
          productCode: e.ESEWA_PRODUCT_CODE,
          secretKey: e.ESEWA_SECRET_KEY,
          formUrl: e.ESEWA_FORM_URL,
          statusUrl: e.ESEWA_STATUS_URL,
          offerMs: e.ESEWA_OFFER_MINUTES * 60_000,
          publicUrl: e.PUBLIC_URL,
        }
      : undefined,
  fonepay: (e) =>
    e.FONEPAY_MERCHANT_CODE &&
    e.FONEPAY_USERNAME &&
    e.FONEPAY_PASSWORD &&
    e.FONEPAY_SECRET_KEY &&
    e.FONEPAY_API_URL
      ? {
          method: "fonepay",
          merchantCode: e.FONEPAY_MERCHANT_CODE,
          username: e.FONEPAY_USERNAME,
          password: e.FONEPAY_PASSWORD,
          secretKey: e.FONEPAY_SECRET_KEY,
          apiUrl: e.FONEPAY_API_URL.replace(/\/+$/, ""),
          signatureCase: e.FONEPAY_SIGNATURE_CASE,
          offerMs: e.FONEPAY_OFFER_MINUTES * 60_000,
        }
      : undefined,
};

export type MethodSettings =
  | {
      method: "telegram";
      /** BotFather's token of the payment provider (a secret: never logged). */
      providerToken: string;
    }
  | {
      method: "khalti";
      /** Khalti's secret key (never logged). */
      secretKey: string;
      baseUrl: string;
      /** This bot's public address: Khalti's return_url and website_url. */
      publicUrl: string;
      /** How long a link is still watched after its expires_at (our clock may run ahead). */
      expiryMarginMs: number;
    }
  | {
      method: "esewa";
      productCode: string;
      /** eSewa's secret key: signs the forms, verifies the redirects (never logged). */
      secretKey: string;
      formUrl: string;
      statusUrl: string;
      /**
       * How long eSewa may still take a payment on a form after the pay page served it (eSewa
       * publishes no expiry): the offer is watched that long.
       */
      offerMs: number;
      /** This bot's public address: the pay page, success_url and failure_url. */
      publicUrl: string;
    }
  | {
      method: "fonepay";
      merchantCode: string;
      username: string;
      /** Fonepay's API password (never logged). */
      password: string;
      /** Signs every request's dataValidation (never logged). */
      secretKey: string;
      /** The merchant API's root, without a trailing slash (…/api). */
      apiUrl: string;
      /** The dataValidation's hex digits as Fonepay's host takes them. */
      signatureCase: "lower" | "upper";
      /** How long a QR is taken to stay payable once made (FONEPAY_OFFER_MINUTES). */
      offerMs: number;
    };

interface PaymentSettings {
  /** The methods offered, in the order of the buyer's buttons. */
  methods: MethodSettings[];
  currency: string;
  /** Digits of the currency's minor unit: amounts asked are in minor units. */
  minorDigits: number;
  /** How long an invoice or payment link may be paid. */
  windowMs: number;
  /** How often unsettled payments are looked up (Khalti). */
  checkMs: number;
  /** A Telegram pre-checkout this close to the window's end is refused. */
  closingMs: number;
  /** An awaiting Telegram invoice ends "not paid" only this long after its window. */
  graceMs: number;
  /** Set when the deprecated PAYMENT_MODE chose the method (a warning at start). */
  deprecatedMode?: PaymentMethod;
}

/** Thrown with every problem at once; the message never contains a variable's value. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parsed(schema, env);
}

/** The ledger's part of the configuration alone (`npm run migrate`). */
export function loadLedgerConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parsed(ledgerVariables, env);
  return { ledger: ledgerTarget(e), secrets: Object.values(secretsOf(e)), logLevel: e.LOG_LEVEL };
}

function parsed<T extends z.ZodType>(shape: T, env: NodeJS.ProcessEnv): z.output<T> {
  // An empty variable is an unset one, for every variable at once (one pass here, rather than
  // a preprocessing step in each variable's schema: building those was a tenth of the start).
  const set = Object.fromEntries(
    Object.entries(env).filter(([, value]) => unsetIfEmpty(value) !== undefined),
  );
  const result = shape.safeParse(set);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${String(issue.path[0] ?? "environment")}: ${issue.message}`,
    );
    throw new ConfigError(problems);
  }
  return result.data;
}
