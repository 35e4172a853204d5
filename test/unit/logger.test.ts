// What a log line keeps of an error (an allow-list, causes included) and that no secret
// survives in any field, message or stack.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { Api, BotError, GrammyError, HttpError } from "grammy";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/adapters/logger.js";
import { secretsOf } from "../../src/config.js";

const BOT_TOKEN = "123456:unit-Bot_token";
const SECRETS = {
  provider: "provider-token-unit",
  payment: "284685063:TEST:unit",
  khalti: "live_secret_key_0123456789abcdef",
  webhook: 'hook_"quoted"_secret',
};

/** A logger knowing the secrets, and the JSON lines it wrote. */
function logged(secrets: readonly string[] = [BOT_TOKEN, ...Object.values(SECRETS)]) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { log: createLogger("debug", { secrets, destination }), lines };
}

const only = (lines: string[]) => {
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string) as { err: Record<string, unknown> } & Record<
    string,
    unknown
  >;
};

describe("the error outline", () => {
  it("keeps a GrammyError's method, code and description, never its payload", () => {
    const { log, lines } = logged();
    const error = new GrammyError(
      "Call to 'sendMessage' failed!",
      { ok: false, error_code: 400, description: "Bad Request: chat not found" },
      "sendMessage",
      { chat_id: 77, text: "Dear Ram Thapa (9841000001)" },
    );
    log.error({ err: error }, "update failed");
    const { err } = only(lines);
    expect(err).toMatchObject({
      type: "GrammyError",
      method: "sendMessage",
      error_code: 400,
      description: "Bad Request: chat not found",
    });
    expect(err.message).toContain("chat not found");
    expect(lines[0]).not.toMatch(/Ram|Thapa|9841000001|payload|chat_id/);
  });

  it("keeps a DatabaseError's code, constraint, table and column, never the failing row", () => {
    const { log, lines } = logged();
    const error = Object.assign(
      new pg.DatabaseError(
        'new row for relation "purchases" violates check constraint',
        1,
        "error",
      ),
      {
        code: "23514",
        constraint: "purchases_amount_check",
        table: "purchases",
        column: "amount",
        detail: "Failing row contains (42, 9841000001, Sita Sharma).",
        where: "SQL statement with Sita",
        hint: "Sita",
        schema: "public",
      },
    );
    log.error({ err: error }, "purchase not recorded");
    const { err } = only(lines);
    expect(err).toMatchObject({
      type: "DatabaseError",
      code: "23514",
      constraint: "purchases_amount_check",
      table: "purchases",
      column: "amount",
    });
    expect(lines[0]).not.toMatch(/Failing row|9841000001|Sita|"detail"|"where"/);
  });

  it("outlines causes the same way, grammY's wrapped `error` included, three deep at most", () => {
    const { log, lines } = logged();
    const root = Object.assign(new Error("socket hang up"), {
      code: "ECONNRESET",
      request: { headers: { phone: "9841000001" } },
    });
    const chain = [1, 2, 3].reduce<Error>(
      (cause, n) => new Error(`wrapper ${n}`, { cause }),
      new HttpError("Network request for 'sendMessage' failed!", root),
    );
    // BotError holds the update's context: the names, the phone number, the API client.
    const ctx = { update: { message: { contact: { phone_number: "9841000001" } } } };
    log.error({ err: new BotError(chain, ctx as never) }, "webhook update failed");
    const { err } = only(lines);
    expect(err.type).toBe("BotError");
    expect(err).toMatchObject({
      cause: {
        message: "wrapper 3",
        cause: { message: "wrapper 2", cause: { message: "wrapper 1" } },
      },
    });
    const third = (err as { cause: { cause: { cause: Record<string, unknown> } } }).cause.cause
      .cause;
    expect(third).not.toHaveProperty("cause");
    expect(lines[0]).not.toMatch(/9841000001|"ctx"|"request"|phone/);

    const shallow = logged();
    shallow.log.error({ err: new BotError(new HttpError("failed", root), ctx as never) }, "x");
    expect(only(shallow.lines).err).toMatchObject({
      cause: { type: "HttpError", cause: { type: "Error", code: "ECONNRESET" } },
    });
  });

  it("outlines an error logged under another field than err, and a thrown non-error", () => {
    const { log, lines } = logged();
    const error = Object.assign(new Error("boom"), { detail: "Failing row contains (Gita)" });
    log.warn({ reason: error, err: { phone: "9861000004" } }, "odd");
    const line = only(lines);
    expect(line.reason).toMatchObject({ type: "Error", message: "boom" });
    expect(line.err).toEqual({ type: "Object" });
    expect(lines[0]).not.toMatch(/Gita|9861000004/);
  });
});

describe("the secret scrubber", () => {
  let server: ReturnType<typeof createServer>;
  let apiRoot: string;
  beforeAll(async () => {
    // A Telegram whose connections drop: grammY's HttpError wraps node-fetch's error, whose
    // message holds the URL .../bot<token>/sendMessage.
    server = createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("removes the bot token from a network error's message, stack and cause", async () => {
    const api = new Api(BOT_TOKEN, { apiRoot });
    const error = await api.sendMessage(1, "hi").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(JSON.stringify((error as HttpError).error?.toString())).toContain(BOT_TOKEN);

    // Known or not: a token in a Bot API URL is scrubbed all the same.
    for (const { log, lines } of [logged(), logged([])]) {
      log.warn(
        { err: error, url: `${apiRoot}/bot${BOT_TOKEN}/getMe` },
        `failed: ${String((error as HttpError).error)}`,
      );
      expect(lines[0]).not.toContain(BOT_TOKEN);
      expect(lines[0]).not.toContain("unit-Bot_token");
      expect(lines[0]).toContain("/bot[redacted]/sendMessage");
    }
  });

  it("removes every configured secret from messages and fields, JSON-escaped ones included", () => {
    const { log, lines } = logged();
    const child = log.child({ header: `Key ${SECRETS.khalti}` });
    child.info(
      { provider: `Bearer ${SECRETS.provider}`, nested: { payment: SECRETS.payment } },
      `secret ${SECRETS.webhook} and ${BOT_TOKEN}`,
    );
    child.error(new Error(`token ${SECRETS.provider} refused`));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      for (const secret of [BOT_TOKEN, ...Object.values(SECRETS)]) {
        expect(line).not.toContain(secret);
        expect(line).not.toContain(JSON.stringify(secret).slice(1, -1));
      }
    }
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      header: "Key [redacted]",
      provider: "Bearer [redacted]",
      nested: { payment: "[redacted]" },
      msg: "secret [redacted] and [redacted]",
    });
  });

  it("removes the passwords of DATABASE_URL and REDIS_URL, as written and percent-decoded", () => {
    const urls = {
      DATABASE_URL: "postgres://ledger:pa%2F55%40pg@db.internal:5432/topup?sslmode=require",
      REDIS_URL: "rediss://bot:r3d1s%3Apw@cache.internal:6380/2",
    };
    const { log, lines } = logged(Object.values(secretsOf(urls)));
    log.error(
      {
        reason: `connect ${urls.DATABASE_URL} failed`,
        err: new Error(`AUTH failed for ${urls.REDIS_URL}`),
      },
      'password "pa/55@pg" and r3d1s:pw refused',
    );
    const line = only(lines);
    expect(lines[0]).not.toMatch(/pa%2F55|pa\/55|r3d1s/);
    expect(line.reason).toBe(
      "connect postgres://[redacted]@db.internal:5432/topup?sslmode=require failed",
    );
    expect(line.err.message).toBe("AUTH failed for rediss://[redacted]@cache.internal:6380/2");
    expect(line.msg).toBe('password "[redacted]" and [redacted] refused');

    // Only the passwords: a user, a host or a URL without a password is left as it is.
    expect(
      secretsOf({ REDIS_URL: "redis://bot@cache:6379", DATABASE_URL: "postgres://u@db/x" }),
    ).toEqual({});
    const parameter = secretsOf({
      DATABASE_URL: "postgres://u@db/x?password=pa%2655&sslmode=disable",
    });
    expect(Object.values(parameter)).toEqual(["pa%2655"]);
    const scrubbed = logged(Object.values(parameter));
    scrubbed.log.warn({}, "pa%2655 or pa&55");
    expect(only(scrubbed.lines).msg).toBe("[redacted] or [redacted]");
  });
});
