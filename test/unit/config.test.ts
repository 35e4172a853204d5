import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES, ConfigError, loadConfig, loadLedgerConfig } from "../../src/config.js";

const valid = {
  BOT_TOKEN: "123456:secret-bot-token",
  PROVIDER_BASE_URL: "http://127.0.0.1:8090/staging/",
  PROVIDER_TOKEN: "secret-provider-token",
  PAYMENT_MODE: "none",
  TOPUP_USER_IDS: "*",
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig(valid);
    expect(config.telegramApiRoot).toBe("https://api.telegram.org");
    expect(config.telegramLinkRoot).toBe("https://t.me");
    // The playground's stand-in for t.me, without its trailing slash: <root>/<bot username>.
    const playground = "http://127.0.0.1:3000/t.me/";
    expect(loadConfig({ ...valid, TELEGRAM_LINK_ROOT: playground }).telegramLinkRoot).toBe(
      "http://127.0.0.1:3000/t.me",
    );
    expect(config.provider).toMatchObject({
      baseUrl: "http://127.0.0.1:8090/staging",
      version: "v1.0.1",
      timeoutMs: 15_000,
      checkoutTtlSeconds: 300,
      timeZone: "UTC",
    });
    expect(config.redis.url).toBe("redis://127.0.0.1:6379");
    expect(config.adminUserIds).toEqual([]);
    expect(config.logLevel).toBe("info");
    expect(config.currency).toBeUndefined();
  });

  it("webhook mode: the secret is required and long, in Telegram's characters; the server on 8080", () => {
    const url = "https://bot.example/telegram/webhook";
    const secret = "Ab_9-z".repeat(6);
    expect(problemsOf({ ...valid, WEBHOOK_URL: url })).toEqual([
      expect.stringMatching(/^WEBHOOK_SECRET: required with WEBHOOK_URL/),
    ]);
    for (const refused of [
      "has space".repeat(4),
      "x".repeat(257),
      "short_Secret-1",
      "x".repeat(31),
    ]) {
      const problems = problemsOf({ ...valid, WEBHOOK_URL: url, WEBHOOK_SECRET: refused });
      expect(problems).toEqual([
        "WEBHOOK_SECRET: must be 32-256 characters of A-Z a-z 0-9 _ - (Telegram's characters)",
      ]);
    }
    expect(
      loadConfig({ ...valid, WEBHOOK_URL: url, WEBHOOK_SECRET: "x".repeat(32) }).webhook,
    ).toBeDefined();
    const config = loadConfig({ ...valid, WEBHOOK_URL: url, WEBHOOK_SECRET: secret });
    expect(config.webhook).toEqual({ url, secret });
    expect(config.http).toEqual({
      port: 8080,
      host: "0.0.0.0",
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1_000,
      maxConnectionsPerClient: 100,
      metricsToken: undefined,
    });
    expect(config.metricsHttp).toBeUndefined();
    expect(config.shutdownGraceMs).toBe(25_000);
  });

  it("WEBHOOK_URL and PUBLIC_URL: https, plain http only on this machine; never echoed", () => {
    const secret = "x".repeat(32);
    const khalti = { ...valid, PAYMENT_MODE: "khalti", KHALTI_SECRET_KEY: "K", HTTP_PORT: "8080" };
    for (const address of ["http://bot.example.com/hook", "http://10.0.0.1/hook", "ftp://x/y"]) {
      const webhook = problemsOf({ ...valid, WEBHOOK_URL: address, WEBHOOK_SECRET: secret });
      expect(webhook).toEqual([expect.stringMatching(/^WEBHOOK_URL: must be an https:\/\//)]);
      const page = problemsOf({ ...khalti, PUBLIC_URL: address });
      expect(page).toEqual([expect.stringMatching(/^PUBLIC_URL: must be an https:\/\//)]);
      expect([...webhook, ...page].join()).not.toContain(address.slice(0, 12));
    }
    for (const address of ["http://localhost:8080/h", "http://127.0.0.1/h", "http://[::1]:80/h"]) {
      expect(
        loadConfig({ ...valid, WEBHOOK_URL: address, WEBHOOK_SECRET: secret }).webhook?.url,
      ).toBe(address);
      expect(loadConfig({ ...khalti, PUBLIC_URL: address }).payment).toBeDefined();
    }
  });

  it("HTTP limits: configurable, the headers' no longer than the request's", () => {
    const config = loadConfig({
      ...valid,
      HTTP_PORT: "9000",
      HTTP_HEADERS_TIMEOUT_MS: "500",
      HTTP_REQUEST_TIMEOUT_MS: "900",
      HTTP_MAX_CONNECTIONS: "7",
      HTTP_MAX_CONNECTIONS_PER_CLIENT: "3",
      HTTP_KEEP_ALIVE_SECONDS: "2",
    });
    expect(config.http).toMatchObject({
      headersTimeoutMs: 500,
      requestTimeoutMs: 900,
      keepAliveTimeoutMs: 2_000,
      maxConnections: 7,
      maxConnectionsPerClient: 3,
    });
    // Short keep-alive and a per-client share unless told.
    expect(loadConfig({ ...valid, HTTP_PORT: "9000" }).http).toMatchObject({
      keepAliveTimeoutMs: 5_000,
      maxConnectionsPerClient: 100,
    });
    expect(problemsOf({ ...valid, HTTP_KEEP_ALIVE_SECONDS: "0" })).toEqual([
      "HTTP_KEEP_ALIVE_SECONDS: must be at least 1 seconds",
    ]);
    expect(
      problemsOf({ ...valid, HTTP_HEADERS_TIMEOUT_MS: "40000", HTTP_REQUEST_TIMEOUT_MS: "30000" }),
    ).toEqual(["HTTP_HEADERS_TIMEOUT_MS: must not be longer than HTTP_REQUEST_TIMEOUT_MS"]);
  });

  it("polling mode: the HTTP server only when a port is given; metrics on a listener of their own", () => {
    expect(loadConfig(valid).http).toBeUndefined();
    expect(loadConfig(valid).webhook).toBeUndefined();
    expect(loadConfig({ ...valid, HTTP_PORT: "9000" }).http).toMatchObject({
      port: 9000,
      host: "0.0.0.0",
    });
    const both = loadConfig({ ...valid, HTTP_PORT: "9000", HTTP_HOST: "::", METRICS_PORT: "9100" });
    expect(both.http).toMatchObject({ port: 9000, host: "::", metricsToken: undefined });
    expect(both.metricsHttp).toMatchObject({ port: 9100, host: "127.0.0.1" });
    expect(
      loadConfig({ ...valid, HTTP_PORT: "9000", METRICS_PORT: "9100", METRICS_HOST: "10.0.0.5" })
        .metricsHttp,
    ).toMatchObject({ port: 9100, host: "10.0.0.5" });
    // METRICS_PORT alone used to open the public server: such a deployment is told, not broken.
    expect(problemsOf({ ...valid, METRICS_PORT: "9100", METRICS_HOST: "0.0.0.0" })).toEqual([
      expect.stringMatching(/^METRICS_PORT: now opens only the metrics listener.*set HTTP_PORT/),
    ]);
    expect(problemsOf({ ...valid, HTTP_PORT: "9100", METRICS_PORT: "9100" })).toEqual([
      expect.stringMatching(/^METRICS_PORT: must differ from HTTP_PORT/),
    ]);
    const token = "m".repeat(40);
    expect(
      loadConfig({ ...valid, HTTP_PORT: "9000", METRICS_TOKEN: token }).http?.metricsToken,
    ).toBe(token);
    const short = problemsOf({ ...valid, HTTP_PORT: "9000", METRICS_TOKEN: "tiny-token" });
    expect(short).toEqual(["METRICS_TOKEN: must be at least 32 characters"]);
  });

  it("reminders: a cap per user; the return page's limits", () => {
    const config = loadConfig(valid);
    expect(config.remindersPerUser).toBe(20);
    expect(config.returnPage).toEqual({ perClientPerMinute: 30, lookupIntervalMs: 5_000 });
    expect(loadConfig({ ...valid, REMINDERS_PER_USER: "3" }).remindersPerUser).toBe(3);
    expect(problemsOf({ ...valid, REMINDERS_PER_USER: "0" })).toEqual([
      "REMINDERS_PER_USER: must be at least 1 reminders",
    ]);
  });

  it("Sentinel: a list of host:port and the master's name", () => {
    const config = loadConfig({ ...valid, REDIS_SENTINELS: "s1:26379, 10.0.0.2:26380" });
    expect(config.redis.sentinels).toEqual([
      { host: "s1", port: 26379 },
      { host: "10.0.0.2", port: 26380 },
    ]);
    expect(config.redis.sentinelName).toBe("mymaster");
    expect(problemsOf({ ...valid, REDIS_SENTINELS: "s1" })[0]).toMatch(/^REDIS_SENTINELS:/);
  });

  it("parses lists and explicit values", () => {
    const config = loadConfig({
      ...valid,
      PROVIDER_API_VERSION: "v1.0.0",
      ADMIN_USER_IDS: "1, 22",
      SUPPORT_CHAT_IDS: "-1001234,-5",
      PROVIDER_TIMEZONE: "Asia/Kathmandu",
      CURRENCY: "NPR",
      PROVIDER_TIMEOUT_MS: "2500",
    });
    expect(config.provider.version).toBe("v1.0.0");
    expect(config.adminUserIds).toEqual([1, 22]);
    expect(config.supportChatIds).toEqual([-1001234, -5]);
    expect(config.provider.timeZone).toBe("Asia/Kathmandu");
    expect(config.currency).toBe("NPR");
    expect(config.provider.timeoutMs).toBe(2500);
  });

  it("names every missing variable at once, treating empty ones as missing", () => {
    const problems = problemsOf({ PROVIDER_TOKEN: "" });
    expect(problems.map((p) => p.split(":")[0])).toEqual([
      "BOT_TOKEN",
      "PROVIDER_BASE_URL",
      "PROVIDER_TOKEN",
      "PAYMENT_METHODS",
    ]);
  });

  it("has no default payment mode, and with none needs to know who may top up", () => {
    const { PAYMENT_MODE: _mode, TOPUP_USER_IDS: _users, ...unset } = valid;
    expect(problemsOf(unset)).toEqual([
      "PAYMENT_METHODS: required: a comma-separated list of telegram, khalti, esewa, fonepay (the buyer's buttons in that order), or PAYMENT_MODE=none (nobody pays in the bot; top-ups for TOPUP_USER_IDS only)",
    ]);
    expect(problemsOf({ ...unset, PAYMENT_MODE: "none" })).toEqual([
      expect.stringMatching(/^TOPUP_USER_IDS: required with PAYMENT_MODE=none/),
    ]);
    expect(problemsOf({ ...valid, TOPUP_USER_IDS: "12,abc" })).toEqual([
      "TOPUP_USER_IDS: must be * or a comma-separated list of numeric Telegram user ids",
    ]);
    expect(problemsOf({ ...valid, PAYMENT_MODE: "khalti" })).toEqual([
      expect.stringMatching(/^KHALTI_SECRET_KEY: required with PAYMENT_METHODS listing khalti/),
      expect.stringMatching(/^PUBLIC_URL: required with PAYMENT_METHODS listing khalti/),
      expect.stringMatching(/^HTTP_PORT: required with PAYMENT_METHODS listing khalti/),
    ]);
    const khalti = {
      ...valid,
      PAYMENT_MODE: "khalti",
      KHALTI_SECRET_KEY: "SECRET-KEY",
      PUBLIC_URL: "https://bot.example.com",
      HTTP_PORT: "8080",
    };
    expect(
      problemsOf({ ...khalti, CURRENCY: "USD", PUBLIC_URL: "http://bot.example.com" }),
    ).toEqual([
      "PUBLIC_URL: must be an https:// URL (http:// only for localhost, 127.0.0.1 or ::1)",
      "CURRENCY: USD: Khalti takes NPR only",
    ]);
    expect(loadConfig(khalti).payment).toMatchObject({
      methods: [
        {
          method: "khalti",
          baseUrl: "https://khalti.com",
          publicUrl: "https://bot.example.com",
        },
      ],
      currency: "NPR",
      minorDigits: 2,
      deprecatedMode: "khalti",
    });
    expect(loadConfig(valid).topupUsers).toBe("everyone");
    expect(loadConfig({ ...valid, TOPUP_USER_IDS: " 12, 34 " }).topupUsers).toEqual([12, 34]);
  });

  it("with eSewa, names each missing variable, takes NPR only and defaults to eSewa's live hosts", () => {
    expect(problemsOf({ ...valid, PAYMENT_MODE: "esewa" })).toEqual([
      expect.stringMatching(/^ESEWA_PRODUCT_CODE: required with PAYMENT_METHODS listing esewa/),
      expect.stringMatching(/^ESEWA_SECRET_KEY: required with PAYMENT_METHODS listing esewa/),
      expect.stringMatching(/^PUBLIC_URL: required with PAYMENT_METHODS listing esewa/),
      expect.stringMatching(/^HTTP_PORT: required with PAYMENT_METHODS listing esewa/),
    ]);
    const esewa = {
      ...valid,
      PAYMENT_MODE: "esewa",
      ESEWA_PRODUCT_CODE: "EPAYTEST",
      ESEWA_SECRET_KEY: "8gBm/:&EnhH.1/q",
      PUBLIC_URL: "https://bot.example.com",
      HTTP_PORT: "8080",
    };
    expect(problemsOf({ ...esewa, CURRENCY: "USD", ESEWA_FORM_URL: "ftp://x" })).toEqual([
      "ESEWA_FORM_URL: must be an http(s) URL",
      "CURRENCY: USD: eSewa takes NPR only",
    ]);
    expect(loadConfig(esewa).payment).toMatchObject({
      methods: [
        {
          method: "esewa",
          productCode: "EPAYTEST",
          formUrl: "https://epay.esewa.com.np/api/epay/main/v2/form",
          statusUrl: "https://epay.esewa.com.np/api/epay/transaction/status/",
          publicUrl: "https://bot.example.com",
        },
      ],
      currency: "NPR",
      minorDigits: 2,
      deprecatedMode: "esewa",
    });
    expect(loadConfig(esewa).secrets).toContain("8gBm/:&EnhH.1/q");
  });

  it("with Fonepay, names each missing variable (never a value), takes NPR only, keeps its secrets out of the log", () => {
    const listed = { ...valid, PAYMENT_MODE: undefined, PAYMENT_METHODS: "esewa,fonepay" } as never;
    const esewa = {
      ESEWA_PRODUCT_CODE: "EPAYTEST",
      ESEWA_SECRET_KEY: "8gBm/:&EnhH.1/q",
      PUBLIC_URL: "https://bot.example.com",
      HTTP_PORT: "8080",
    };
    expect(problemsOf({ ...(listed as object), ...esewa } as never)).toEqual([
      expect.stringMatching(
        /^FONEPAY_MERCHANT_CODE: required with PAYMENT_METHODS listing fonepay/,
      ),
      expect.stringMatching(/^FONEPAY_USERNAME: required with PAYMENT_METHODS listing fonepay/),
      expect.stringMatching(/^FONEPAY_PASSWORD: required with PAYMENT_METHODS listing fonepay/),
      expect.stringMatching(/^FONEPAY_SECRET_KEY: required with PAYMENT_METHODS listing fonepay/),
      expect.stringMatching(/^FONEPAY_API_URL: required with PAYMENT_METHODS listing fonepay/),
    ]);
    const fonepay = {
      ...(listed as object),
      ...esewa,
      FONEPAY_MERCHANT_CODE: "fonepay123",
      FONEPAY_USERNAME: "bijayk",
      FONEPAY_PASSWORD: "fonepay-password-config",
      FONEPAY_SECRET_KEY: "fonepay-secret-config",
      FONEPAY_API_URL: "https://uat-new-merchant-api.fonepay.com/api/",
    } as Record<string, string>;
    const wrong = problemsOf({
      ...fonepay,
      CURRENCY: "USD",
      FONEPAY_API_URL: "ftp://fonepay-secret-config",
      FONEPAY_MERCHANT_CODE: "has spaces fonepay-password-config",
      FONEPAY_SIGNATURE_CASE: "mixed",
    });
    expect(wrong).toEqual([
      "FONEPAY_MERCHANT_CODE: must be Fonepay's merchant code: letters, digits, _ or -",
      "FONEPAY_API_URL: must be an https:// URL (http:// only for localhost, 127.0.0.1 or ::1)",
      "FONEPAY_SIGNATURE_CASE: must be lower or upper",
    ]);
    // Review of #39, finding 12: the username and password travel in every body: never over
    // plain http but to a sandbox on this machine.
    expect(
      problemsOf({ ...fonepay, FONEPAY_API_URL: "http://merchantapi.fonepay.com/api" }),
    ).toEqual([
      "FONEPAY_API_URL: must be an https:// URL (http:// only for localhost, 127.0.0.1 or ::1)",
    ]);
    expect(() =>
      loadConfig({ ...fonepay, FONEPAY_API_URL: "http://127.0.0.1:9/api" }),
    ).not.toThrow();
    expect(wrong.join("\n")).not.toMatch(/fonepay-(secret|password)-config/);
    expect(problemsOf({ ...fonepay, CURRENCY: "USD" })).toEqual([
      "CURRENCY: USD: eSewa takes NPR only",
      "CURRENCY: USD: Fonepay takes NPR only",
    ]);
    const config = loadConfig(fonepay);
    expect(config.payment?.methods.map((method) => method.method)).toEqual(["esewa", "fonepay"]);
    expect(config.payment?.methods[1]).toEqual({
      method: "fonepay",
      merchantCode: "fonepay123",
      username: "bijayk",
      password: "fonepay-password-config",
      secretKey: "fonepay-secret-config",
      apiUrl: "https://uat-new-merchant-api.fonepay.com/api",
      signatureCase: "lower",
      offerMs: 60 * 60_000,
    });
    // FONEPAY_OFFER_MINUTES: how long a QR is taken to stay payable (review of #39, finding 5).
    expect(
      loadConfig({ ...fonepay, FONEPAY_OFFER_MINUTES: "180" }).payment?.methods.find(
        (method) => method.method === "fonepay",
      ),
    ).toMatchObject({ offerMs: 180 * 60_000 });
    expect(problemsOf({ ...fonepay, FONEPAY_OFFER_MINUTES: "0" })).toEqual([
      expect.stringMatching(/^FONEPAY_OFFER_MINUTES: /),
    ]);
    expect(config.secrets).toEqual(
      expect.arrayContaining(["fonepay-password-config", "fonepay-secret-config"]),
    );
    // Not listed: its variables are not needed, and nothing of it is built.
    expect(loadConfig({ ...valid, PAYMENT_MODE: "esewa", ...esewa }).payment?.methods).toHaveLength(
      1,
    );
  });

  it("with telegram payments, names each missing or wrong variable and keeps the token out", () => {
    const telegram = { ...valid, PAYMENT_MODE: "telegram" };
    expect(problemsOf(telegram)).toEqual([
      expect.stringMatching(
        /^PAYMENT_PROVIDER_TOKEN: required with PAYMENT_METHODS listing telegram/,
      ),
      expect.stringMatching(/^CURRENCY: required with PAYMENT_METHODS listing telegram/),
    ]);
    expect(
      problemsOf({ ...telegram, PAYMENT_PROVIDER_TOKEN: "SECRET:1", CURRENCY: "XQQ" }),
    ).toEqual(["CURRENCY: XQQ: not a currency this platform knows (ISO 4217)"]);
    const config = loadConfig({
      ...telegram,
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:x",
      CURRENCY: "JPY",
      PAYMENT_WINDOW_SECONDS: "60",
    });
    expect(config.payment).toMatchObject({
      methods: [{ method: "telegram" }],
      currency: "JPY",
      minorDigits: 0,
      windowMs: 60_000,
      checkMs: 10_000,
      // The last minute by default, but never more than a quarter of a short window.
      closingMs: 15_000,
      graceMs: 300_000,
    });
    // Nobody is turned away when everyone pays.
    expect(config.topupUsers).toBe("everyone");
    expect(loadConfig(valid).payment).toBeUndefined();
  });

  describe("PAYMENT_METHODS", () => {
    const { PAYMENT_MODE: _mode, ...unset } = valid;
    const both = {
      ...unset,
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:x",
      CURRENCY: "NPR",
      KHALTI_SECRET_KEY: "SECRET-KEY",
      PUBLIC_URL: "https://bot.example.com",
      HTTP_PORT: "8080",
    };

    it("lists the methods in the order of the buttons, each with its own settings", () => {
      const config = loadConfig({ ...both, PAYMENT_METHODS: " khalti , telegram " });
      expect(config.payment?.methods.map((m) => m.method)).toEqual(["khalti", "telegram"]);
      expect(config.payment).toMatchObject({ currency: "NPR", minorDigits: 2 });
      expect(config.payment?.deprecatedMode).toBeUndefined();
      expect(config.topupUsers).toBe("everyone");
      const telegramFirst = loadConfig({ ...both, PAYMENT_METHODS: "telegram,khalti" });
      expect(telegramFirst.payment?.methods.map((m) => m.method)).toEqual(["telegram", "khalti"]);
    });

    it("needs a method's variables only when it is listed, and names each one missing", () => {
      expect(problemsOf({ ...unset, PAYMENT_METHODS: "telegram" })).toEqual([
        expect.stringMatching(
          /^PAYMENT_PROVIDER_TOKEN: required with PAYMENT_METHODS listing telegram/,
        ),
        expect.stringMatching(/^CURRENCY: required with PAYMENT_METHODS listing telegram/),
      ]);
      const { KHALTI_SECRET_KEY: _key, ...noKey } = both;
      expect(problemsOf({ ...noKey, PAYMENT_METHODS: "telegram,khalti" })).toEqual([
        expect.stringMatching(/^KHALTI_SECRET_KEY: required with PAYMENT_METHODS listing khalti/),
      ]);
      expect(loadConfig({ ...noKey, PAYMENT_METHODS: "telegram" }).payment?.methods).toHaveLength(
        1,
      );
      expect(problemsOf({ ...both, PAYMENT_METHODS: "telegram,khalti", CURRENCY: "USD" })).toEqual([
        "CURRENCY: USD: Khalti takes NPR only",
      ]);
    });

    it("refuses an unknown or repeated method", () => {
      const message =
        "PAYMENT_METHODS: must be a comma-separated list of telegram, khalti, esewa, fonepay, each once";
      expect(problemsOf({ ...both, PAYMENT_METHODS: "telegram,paypal" })).toEqual([message]);
      expect(problemsOf({ ...both, PAYMENT_METHODS: "khalti,khalti" })).toEqual([message]);
      expect(problemsOf({ ...both, PAYMENT_METHODS: "telegram," })).toEqual([message]);
    });

    it("takes PAYMENT_MODE as a deprecated alias, and refuses both unless they agree", () => {
      const alias = loadConfig({ ...both, PAYMENT_MODE: "khalti" });
      expect(alias.payment?.methods.map((m) => m.method)).toEqual(["khalti"]);
      expect(alias.payment?.deprecatedMode).toBe("khalti");
      const agreeing = loadConfig({ ...both, PAYMENT_MODE: "khalti", PAYMENT_METHODS: "khalti" });
      expect(agreeing.payment?.methods.map((m) => m.method)).toEqual(["khalti"]);
      const conflict = expect.stringMatching(/^PAYMENT_MODE: disagrees with PAYMENT_METHODS/);
      expect(
        problemsOf({ ...both, PAYMENT_MODE: "khalti", PAYMENT_METHODS: "telegram,khalti" }),
      ).toEqual([conflict]);
      expect(
        problemsOf({
          ...both,
          PAYMENT_MODE: "none",
          PAYMENT_METHODS: "telegram",
          TOPUP_USER_IDS: "1",
        }),
      ).toEqual([conflict]);
      // none keeps its meaning: nobody pays in the bot.
      expect(loadConfig({ ...unset, PAYMENT_MODE: "none" }).payment).toBeUndefined();
    });
  });

  it("roles: staff, refunders and the cache of group administrators", () => {
    const defaults = loadConfig(valid);
    expect(defaults.roles).toEqual({
      staffUserIds: undefined,
      refundUserIds: [],
      groupAdminsCacheMs: 300_000,
    });
    expect(defaults.limits.lookupBudgetPerHour).toBe(1_000);
    const set = loadConfig({
      ...valid,
      STAFF_USER_IDS: "7, 8",
      REFUND_USER_IDS: "9",
      STAFF_ROLE_CACHE_SECONDS: "0",
      LOOKUP_BUDGET_PER_HOUR: "0",
    });
    expect(set.roles).toEqual({ staffUserIds: [7, 8], refundUserIds: [9], groupAdminsCacheMs: 0 });
    expect(set.limits.lookupBudgetPerHour).toBe(0);
    expect(problemsOf({ ...valid, STAFF_USER_IDS: "7,-8" })[0]).toMatch(/^STAFF_USER_IDS:/);
    expect(problemsOf({ ...valid, REFUND_USER_IDS: "x" })[0]).toMatch(/^REFUND_USER_IDS:/);
  });

  it("BALANCE_ALERT_BELOW and BALANCE_STOP_BELOW: off by default, an amount in minor units, a malformed one named", () => {
    expect(loadConfig(valid).balanceAlertBelowMinor).toBeUndefined();
    expect(loadConfig({ ...valid, BALANCE_ALERT_BELOW: "50000.5" }).balanceAlertBelowMinor).toBe(
      5_000_050n,
    );
    for (const wrong of ["-5", "1.234", "lots"]) {
      expect(problemsOf({ ...valid, BALANCE_ALERT_BELOW: wrong })).toEqual([
        expect.stringMatching(/^BALANCE_ALERT_BELOW: must be an amount/),
      ]);
    }
    expect(loadConfig(valid).balanceStopBelowMinor).toBeUndefined();
    expect(loadConfig({ ...valid, BALANCE_STOP_BELOW: "0" }).balanceStopBelowMinor).toBe(0n);
    expect(problemsOf({ ...valid, BALANCE_STOP_BELOW: "1,000" })).toEqual([
      expect.stringMatching(/^BALANCE_STOP_BELOW: must be an amount/),
    ]);
  });

  it("support chats are groups only: a private chat's id is refused by its position", () => {
    const problems = problemsOf({ ...valid, SUPPORT_CHAT_IDS: "-1001234, 4242424242" });
    expect(problems).toEqual([
      "SUPPORT_CHAT_IDS: entry 2 is not a group id: only groups and supergroups (negative ids) may be support chats",
    ]);
    expect(problems.join("\n")).not.toContain("4242424242");
    expect(problemsOf({ ...valid, SUPPORT_CHAT_IDS: "0" })[0]).toMatch(/entry 1 is not a group/);
  });

  it("explains every invalid variable without echoing values", () => {
    const problems = problemsOf({
      ...valid,
      BOT_TOKEN: "not-a-token-SECRETVALUE",
      PROVIDER_API_VERSION: "v2",
      PROVIDER_TIMEOUT_MS: "fast",
      PROVIDER_TIMEZONE: "Mars/Olympus",
      CURRENCY: "rupees",
      ADMIN_USER_IDS: "1,two",
      REDIS_URL: "http://localhost",
      LOG_LEVEL: "loud",
    });
    const named = problems.map((p) => p.split(":")[0]);
    expect(named).toEqual([
      "BOT_TOKEN",
      "PROVIDER_API_VERSION",
      "PROVIDER_TIMEOUT_MS",
      "PROVIDER_TIMEZONE",
      "CURRENCY",
      "REDIS_URL",
      "ADMIN_USER_IDS",
      "LOG_LEVEL",
    ]);
    expect(problems.join("\n")).not.toContain("SECRETVALUE");
  });
});

describe("the bot process with bad configuration", () => {
  it("prints one clear message and exits 1, without a stack trace or secrets", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: {
        PATH: process.env.PATH,
        PROVIDER_TOKEN: "super-secret-provider-token",
        PROVIDER_TIMEOUT_MS: "-1",
      },
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Invalid configuration");
    expect(result.stderr).toContain("BOT_TOKEN: required");
    expect(result.stderr).toContain("PROVIDER_BASE_URL: required");
    expect(result.stderr).toContain("PROVIDER_TIMEOUT_MS: must be a whole number");
    expect(result.stderr).toContain("PAYMENT_METHODS: required:");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr + result.stdout).not.toContain("super-secret-provider-token");
  });
});

describe("the bot process with a payment method's variable missing", () => {
  it("does not start, and names the variable and the method that needs it", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: {
        PATH: process.env.PATH,
        ...valid,
        PAYMENT_MODE: "",
        PAYMENT_METHODS: "telegram,khalti",
        PAYMENT_PROVIDER_TOKEN: "284685063:TEST:x",
        CURRENCY: "NPR",
        PUBLIC_URL: "https://bot.example.com",
        HTTP_PORT: "8080",
      },
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "KHALTI_SECRET_KEY: required with PAYMENT_METHODS listing khalti",
    );
    expect(result.stderr).not.toContain("PAYMENT_PROVIDER_TOKEN");
  });
});

describe("the bot process with a private chat among the support chats", () => {
  it("does not start, and says which entry is wrong", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: { PATH: process.env.PATH, ...valid, SUPPORT_CHAT_IDS: "-100123,555000111" },
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "SUPPORT_CHAT_IDS: entry 2 is not a group id: only groups and supergroups (negative ids) may be support chats",
    );
    expect(result.stderr + result.stdout).not.toContain("555000111");
    expect(result.stderr + result.stdout).not.toContain("secret-bot-token");
  });
});

describe("the configuration table in docs/operations.md", () => {
  /** The variable names in the first column of the table under "## Configuration". */
  function documentedVariables(): string[] {
    const guide = readFileSync("docs/operations.md", "utf8");
    const section = guide.split(/^## /m).find((part) => part.startsWith("Configuration"));
    if (!section) throw new Error('docs/operations.md has no "## Configuration" section');
    return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1] ?? "");
  }

  it("lists exactly the variables the schema declares, each once", () => {
    const documented = documentedVariables();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

describe("the secrets the logger scrubs", () => {
  it("are the bot token, the provider token, the payment keys and the webhook secret that are set", () => {
    expect(loadConfig(valid).secrets).toEqual([valid.BOT_TOKEN, valid.PROVIDER_TOKEN]);
    const all = {
      ...valid,
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:config",
      KHALTI_SECRET_KEY: "khalti-secret-config",
      ESEWA_SECRET_KEY: "esewa-secret-config",
      WEBHOOK_URL: "https://bot.example.com/telegram",
      WEBHOOK_SECRET: "hook_secret_config_of_32_characters",
      PAYMENT_JOURNAL_KEY: "journal-key-config-of-32-characters",
    };
    expect(loadConfig(all).secrets).toEqual([
      valid.BOT_TOKEN,
      valid.PROVIDER_TOKEN,
      all.PAYMENT_PROVIDER_TOKEN,
      all.KHALTI_SECRET_KEY,
      all.ESEWA_SECRET_KEY,
      all.WEBHOOK_SECRET,
      all.PAYMENT_JOURNAL_KEY,
    ]);
  });

  it("a journal key too short to be one is refused, without echoing it", () => {
    const problems = problemsOf({ ...valid, PAYMENT_JOURNAL_KEY: "short-journal-key" });
    expect(problems).toEqual(["PAYMENT_JOURNAL_KEY: must be at least 32 characters"]);
    expect(problems.join("\n")).not.toContain("short-journal-key");
  });

  it("include the passwords in DATABASE_URL and REDIS_URL, also for `npm run migrate`", () => {
    const stores = {
      DATABASE_URL: "postgresql://ledger:pg%23pw@db.internal/topup",
      REDIS_URL: "redis://:redis-pw@cache.internal:6379",
    };
    expect(loadConfig({ ...valid, ...stores }).secrets).toEqual([
      valid.BOT_TOKEN,
      valid.PROVIDER_TOKEN,
      "pg%23pw",
      "ledger:pg%23pw",
      "redis-pw",
      ":redis-pw",
    ]);
    expect(loadLedgerConfig(stores).secrets).toEqual(["pg%23pw", "ledger:pg%23pw"]);
  });
});
