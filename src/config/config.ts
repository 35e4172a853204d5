import { z } from "zod";
import { isValidTimeZone } from "../provider/datetime.js";

const PROVIDER_VERSIONS = ["v1.0.0", "v1.0.1"] as const;
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** An empty variable counts as unset: env files and compose often leave `NAME=` behind. */
const unsetIfEmpty = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const required = (what: string) =>
  z.preprocess(unsetIfEmpty, z.string({ error: `required: ${what}` }));

const wholeNumber = (fallback: number, min: number, max: number, unit: string) =>
  z.preprocess(
    unsetIfEmpty,
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
      .default(fallback),
  );

const idList = (what: string) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\s*-?\d+(\s*,\s*-?\d+)*\s*$/, {
        error: `must be a comma-separated list of numeric ${what}`,
      })
      .transform((list) => list.split(",").map((id) => Number(id.trim())))
      .default([]),
  );

const url = (what: string) =>
  z.url({ protocol: /^https?$/, error: `must be an http(s) URL (${what})` });

const schema = z.object({
  BOT_TOKEN: required("the bot token from @BotFather").pipe(
    z.string().regex(/^\d+:\S+$/, { error: "does not look like a bot token (<id>:<secret>)" }),
  ),
  TELEGRAM_API_ROOT: z.preprocess(
    unsetIfEmpty,
    url("the Telegram Bot API root").default("https://api.telegram.org"),
  ),
  PROVIDER_BASE_URL: required("the provider's base URL").pipe(url("the provider's base URL")),
  PROVIDER_API_VERSION: z.preprocess(
    unsetIfEmpty,
    z
      .enum(PROVIDER_VERSIONS, { error: `must be one of ${PROVIDER_VERSIONS.join(", ")}` })
      .default("v1.0.1"),
  ),
  PROVIDER_TOKEN: required("the provider's bearer token"),
  PROVIDER_TIMEOUT_MS: wholeNumber(15_000, 100, 300_000, "milliseconds"),
  PROVIDER_READ_RETRIES: wholeNumber(2, 0, 10, "retries"),
  CHECKOUT_TTL_SECONDS: wholeNumber(300, 10, 86_400, "seconds"),
  PROVIDER_TIMEZONE: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .refine(isValidTimeZone, { error: "must be an IANA time zone name such as Asia/Kathmandu" })
      .default("UTC"),
  ),
  CURRENCY: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^[A-Z]{3}$/, { error: "must be a three-letter ISO 4217 code such as NPR" })
      .optional(),
  ),
  REDIS_URL: z.preprocess(
    unsetIfEmpty,
    z
      .url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" })
      .default("redis://127.0.0.1:6379"),
  ),
  ADMIN_USER_IDS: idList("Telegram user ids"),
  SUPPORT_CHAT_IDS: idList("Telegram chat ids"),
  LOG_LEVEL: z.preprocess(
    unsetIfEmpty,
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).default("info"),
  ),
});

export type ProviderApiVersion = (typeof PROVIDER_VERSIONS)[number];

export interface Config {
  botToken: string;
  telegramApiRoot: string;
  provider: {
    baseUrl: string;
    version: ProviderApiVersion;
    token: string;
    timeoutMs: number;
    readRetries: number;
    checkoutTtlSeconds: number;
    timeZone: string;
  };
  currency: string | undefined;
  redisUrl: string;
  adminUserIds: number[];
  supportChatIds: number[];
  logLevel: (typeof LOG_LEVELS)[number];
}

/** Thrown with every problem at once; the message never contains a variable's value. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${String(issue.path[0] ?? "environment")}: ${issue.message}`,
    );
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  return {
    botToken: e.BOT_TOKEN,
    telegramApiRoot: e.TELEGRAM_API_ROOT.replace(/\/+$/, ""),
    provider: {
      baseUrl: e.PROVIDER_BASE_URL.replace(/\/+$/, ""),
      version: e.PROVIDER_API_VERSION,
      token: e.PROVIDER_TOKEN,
      timeoutMs: e.PROVIDER_TIMEOUT_MS,
      readRetries: e.PROVIDER_READ_RETRIES,
      checkoutTtlSeconds: e.CHECKOUT_TTL_SECONDS,
      timeZone: e.PROVIDER_TIMEZONE,
    },
    currency: e.CURRENCY,
    redisUrl: e.REDIS_URL,
    adminUserIds: e.ADMIN_USER_IDS,
    supportChatIds: e.SUPPORT_CHAT_IDS,
    logLevel: e.LOG_LEVEL,
  };
}
