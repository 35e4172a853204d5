// What each HTTP answer means, over real HTTP from a server of the test's own: only the
// provider's own envelope (`success: false`) refuses; any other answer to a top-up that was
// sent leaves its outcome unknown, and says "unavailable" of a read, never "not found".
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProviderClient } from "../../src/adapters/provider/client.js";
import type { TopupRequest } from "../../src/domain/model.js";
import { ask, type ReadFailure, topupFailure } from "../../src/domain/provider-answers.js";
import {
  ProviderRejectedError,
  ProviderUnauthorizedError,
  TopupOutcomeUnknownError,
} from "../../src/domain/provider-errors.js";
import { ProviderHealth } from "../../src/domain/provider-health.js";
import { captureLogs } from "../support/log-capture.js";
import { freePort } from "../support/ports.js";

interface Answer {
  status: number;
  contentType: string;
  text: string;
  headers?: Record<string, string>;
}

const logger = captureLogs().logger;
let answer: Answer;
let calls: string[] = [];
let server: Server;
let client: ProviderClient;

beforeAll(async () => {
  server = createServer((request, response) => {
    calls.push(request.url ?? "");
    request.resume().on("end", () => {
      response.writeHead(answer.status, {
        "content-type": answer.contentType,
        ...answer.headers,
      });
      response.end(answer.text);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  client = clientAt(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
beforeEach(() => {
  calls = [];
});
afterAll(async () => {
  await client.close();
  await new Promise((done) => server.close(done));
});

function clientAt(baseUrl: string): ProviderClient {
  return new ProviderClient({
    baseUrl,
    version: "v1.0.1",
    token: "answers-token",
    timeoutMs: 1_000,
    readRetries: 0,
    timeZone: "UTC",
    logger,
  });
}

const request: TopupRequest = {
  cuid: "1000001",
  service: "tv",
  connectionId: "8000000011",
  checkoutId: "checkout-1",
  bouquetCode: "TV-GOLD-M",
  amount: "700",
};

const json = (status: number, value: unknown): Answer => ({
  status,
  contentType: "application/json",
  text: JSON.stringify(value),
});
const refusal = (status: number) =>
  json(status, { success: false, code: "E-77", message: "no", body: {} });
const html = (status: number): Answer => ({
  status,
  contentType: "text/html",
  text: `<html><head><title>${status}</title></head><body><h1>${status}</h1><hr>nginx</body></html>`,
});
/** Every answer without the envelope a gateway in front of the provider may give. */
const bare = (status: number): [string, Answer][] => [
  ["an HTML page", html(status)],
  ["JSON without the envelope", json(status, { error: "Too Many Requests", retryAfter: 1 })],
  ["plain text", { status, contentType: "text/plain", text: "Conflict" }],
  ["an empty body", { status, contentType: "text/plain", text: "" }],
];

const GATEWAY_4XX = [400, 404, 408, 409, 422, 429];
const TOKEN = [401, 403];
const SERVER = [500, 502, 503];

/** The top-up's error, and what the domain makes of it. */
async function topupWith(given: Answer) {
  answer = given;
  const error = await client.topup(request).then(
    () => null,
    (e: unknown) => e,
  );
  return { error, kind: topupFailure(error).kind };
}

/** The provider's health in front of the client: it pauses top-ups once the token is refused. */
function healthOf(): ProviderHealth {
  return new ProviderHealth(
    client,
    { send: async () => undefined },
    { claim: async () => true, endOutage: async () => false },
    { failuresToOpen: 5, probeAfterMs: 60_000, alertRepeatMs: 60_000 },
    logger,
  );
}

async function readWith(given: Answer): Promise<ReadFailure | "ok"> {
  answer = given;
  const read = await ask(() => client.txnStatus("checkout-1"), logger, "txn-status");
  return read.ok ? "ok" : read.failure;
}

describe("a top-up", () => {
  it.each([200, ...GATEWAY_4XX])(
    "is refused (did not happen) only by the provider's envelope: HTTP %i",
    async (status) => {
      const { error, kind } = await topupWith(refusal(status));
      expect(error).toBeInstanceOf(ProviderRejectedError);
      expect(kind).toBe("refused");
      expect((error as ProviderRejectedError).code).toBe("E-77");
      expect(calls).toHaveLength(1);
    },
  );

  const unknown = [
    ...[200, ...GATEWAY_4XX, ...TOKEN, ...SERVER].flatMap((status) =>
      bare(status).map(([what, given]) => [status, what, given] as const),
    ),
    ...SERVER.map((status) => [status, "the envelope", refusal(status)] as const),
  ];
  it.each(unknown)("HTTP %i with %s: outcome unknown, sent once", async (_, __, given) => {
    const { error, kind } = await topupWith(given);
    expect(error).toBeInstanceOf(TopupOutcomeUnknownError);
    expect(kind).toBe("unknown");
    expect((error as TopupOutcomeUnknownError).checkoutId).toBe("checkout-1");
    expect(calls).toHaveLength(1);
  });

  it.each(TOKEN)(
    "HTTP %i with the envelope: our token refused by the provider itself, so it did not happen",
    async (status) => {
      const { error, kind } = await topupWith(refusal(status));
      expect(error).toBeInstanceOf(ProviderUnauthorizedError);
      expect((error as ProviderUnauthorizedError).refused).toBe(true);
      expect(kind).toBe("unauthorized");
      expect(calls).toHaveLength(1);
    },
  );

  it("with our token refused by the provider's envelope pauses top-ups at once", async () => {
    const health = healthOf();
    answer = refusal(401);
    const error = await health.topup(request).catch((e: unknown) => e);
    expect(topupFailure(error).kind).toBe("unauthorized");
    expect(health.state).toBe("token-refused");
    expect(calls).toHaveLength(1);
  });

  it("with our token refused without the envelope is unknown, and still pauses top-ups", async () => {
    const health = healthOf();
    answer = html(401);
    const error = await health.topup(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TopupOutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(ProviderUnauthorizedError);
    expect(health.state).toBe("token-refused");
    // Paused: the next one is not sent, and nothing happened.
    const next = await health.topup(request).catch((e: unknown) => e);
    expect(topupFailure(next).kind).toBe("unauthorized");
    expect(calls).toHaveLength(1);
  });

  it("that never left (connection refused) is not sent", async () => {
    const nowhere = clientAt(`http://127.0.0.1:${await freePort()}`);
    const error = await nowhere.topup(request).catch((e: unknown) => e);
    await nowhere.close();
    expect(error).not.toBeInstanceOf(TopupOutcomeUnknownError);
    expect(topupFailure(error).kind).toBe("not-sent");
  });
});

describe("a read (txn-status)", () => {
  // "Not found" lets a paid top-up be called not charged and refunded: only the provider's
  // envelope under 200 or 404, without Retry-After, says it.
  it.each([200, 404])("finds nothing only by the provider's envelope: HTTP %i", async (status) => {
    expect(await readWith(refusal(status))).toBe("not-found");
  });

  it.each(GATEWAY_4XX.filter((status) => status !== 404))(
    "HTTP %i with the envelope: unavailable, asked again later",
    async (status) => {
      expect(await readWith(refusal(status))).toBe("unavailable");
    },
  );

  it.each([200, 404, 429, 503])(
    "HTTP %i with the envelope and Retry-After: unavailable, asked again later",
    async (status) => {
      const later = { ...refusal(status), headers: { "retry-after": "5" } };
      expect(await readWith(later)).toBe("unavailable");
    },
  );

  it("a customer lookup's refusal is still its envelope under any 4xx: not found", async () => {
    answer = refusal(409);
    const read = await ask(() => client.getCustomer("1000001"), logger, "lookup");
    expect(read).toEqual({ ok: false, failure: "not-found" });
  });

  it.each(
    [200, ...GATEWAY_4XX, ...SERVER].flatMap((status) =>
      bare(status).map(([what, given]) => [status, what, given] as const),
    ),
  )("HTTP %i with %s: unavailable", async (_, __, given) => {
    expect(await readWith(given)).toBe("unavailable");
  });

  it.each(SERVER)("HTTP %i with the envelope: unavailable", async (status) => {
    expect(await readWith(refusal(status))).toBe("unavailable");
  });

  it.each(TOKEN.flatMap((status) => [html(status), refusal(status)]))(
    "HTTP $status: our token, whatever the body",
    async (given) => {
      expect(await readWith(given)).toBe("unauthorized");
    },
  );

  it("reads the provider's success", async () => {
    const result = { txnId: "T1", orderId: "checkout-1", status: "success" };
    expect(await readWith(json(200, { success: true, code: "400ab001", body: { result } }))).toBe(
      "ok",
    );
  });
});
