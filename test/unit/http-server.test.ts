import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  HttpServer,
  type HttpServerOptions,
  type WebhookRejection,
} from "../../src/adapters/http/server.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const SECRET = "s3cret_-X".repeat(4);
/** Short limits, so that a late client is cut off within the test's seconds. */
const LIMITS = { headersTimeoutMs: 300, requestTimeoutMs: 800, maxConnections: 100 };

/** The updates with `"paid": true` are answered only once handled. */
const answersOnceHandled = (update: unknown) => (update as { paid?: boolean }).paid === true;

function serverWith(handle: (update: unknown) => Promise<void>, ready = () => true) {
  const rejected: WebhookRejection[] = [];
  const server = new HttpServer({
    host: "127.0.0.1",
    port: 0,
    ...LIMITS,
    webhook: { path: "/hook", secret: SECRET, handle, answerWithinMs: 200, answersOnceHandled },
    ready,
    metrics: { contentType: "text/plain", render: async () => "metric 1\n" },
    onRejected: (reason) => rejected.push(reason),
    log: quiet,
  });
  return { server, rejected };
}

const post = (server: HttpServer, body: string, secret: string | null = SECRET) =>
  fetch(`http://127.0.0.1:${server.port}/hook`, {
    method: "POST",
    body,
    headers: secret === null ? {} : { "x-telegram-bot-api-secret-token": secret },
  });

describe("HttpServer", () => {
  let open: HttpServer | undefined;
  afterEach(() => open?.close());

  it("hands an update with the right secret over, and refuses others with 401", async () => {
    const handled: unknown[] = [];
    const { server, rejected } = serverWith(async (update) => {
      handled.push(update);
    });
    open = server;
    await server.listen();
    expect((await post(server, '{"update_id":1}')).status).toBe(200);
    expect((await post(server, '{"update_id":2}', null)).status).toBe(401);
    expect((await post(server, '{"update_id":3}', `${SECRET}x`)).status).toBe(401);
    expect((await post(server, "not json")).status).toBe(400);
    expect(handled).toEqual([{ update_id: 1 }]);
    expect(rejected).toEqual(["secret", "secret", "malformed"]);
  });

  it("answers a slow update in time while its handling goes on, and drains it", async () => {
    let done = false;
    const { server } = serverWith(async () => {
      await sleep(600);
      done = true;
    });
    open = server;
    await server.listen();
    const started = Date.now();
    expect((await post(server, '{"update_id":1}')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
    expect(done).toBe(false);
    await server.drain();
    expect(done).toBe(true);
  });

  it("answers 500 to an update that failed in time, so that Telegram delivers it again", async () => {
    const { server } = serverWith(async (update) => {
      if ((update as { update_id: number }).update_id === 1) throw new Error("kept nowhere");
    });
    open = server;
    await server.listen();
    expect((await post(server, '{"update_id":1}')).status).toBe(500);
    expect((await post(server, '{"update_id":2}')).status).toBe(200);
  });

  it("answers a payment's confirmation only once handled: 200 when kept, 500 when not", async () => {
    const { server } = serverWith(async (update) => {
      await sleep(400);
      if ((update as { update_id: number }).update_id === 2) throw new Error("kept nowhere");
    });
    open = server;
    await server.listen();
    const started = Date.now();
    expect((await post(server, '{"update_id":1,"paid":true}')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect((await post(server, '{"update_id":2,"paid":true}')).status).toBe(500);
    // Any other update is still answered in time, and a failure after the answer is only logged.
    expect((await post(server, '{"update_id":2}')).status).toBe(200);
  });

  it("is not ready and refuses updates with 503 once stopping; alive all along", async () => {
    let redisUp = true;
    const { server, rejected } = serverWith(
      async () => undefined,
      () => redisUp,
    );
    open = server;
    await server.listen();
    const get = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`);
    expect((await get("/readyz")).status).toBe(200);
    redisUp = false;
    expect((await get("/readyz")).status).toBe(503);
    redisUp = true;
    server.stopTakingWork();
    expect((await get("/readyz")).status).toBe(503);
    expect((await get("/healthz")).status).toBe(200);
    expect(await (await get("/metrics")).text()).toBe("metric 1\n");
    expect((await post(server, '{"update_id":1}')).status).toBe(503);
    expect(rejected).toEqual(["stopping"]);
    expect((await get("/nothing")).status).toBe(404);
  });
});

/** A raw connection: what the server sent, and when it closed (ms after opening). */
function rawClient(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  const opened = Date.now();
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString("latin1");
  });
  socket.on("error", () => undefined);
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => resolve(Date.now() - opened)),
  );
  return { socket, closed, received: () => received };
}

function server(options: Partial<HttpServerOptions>) {
  return new HttpServer({
    host: "127.0.0.1",
    port: 0,
    ...LIMITS,
    ready: () => true,
    onRejected: () => undefined,
    log: quiet,
    ...options,
  });
}

describe("HttpServer against slow and abusive clients", () => {
  let open: HttpServer | undefined;
  afterEach(() => open?.close());

  async function listening(options: Partial<HttpServerOptions> = {}) {
    open = server({
      webhook: {
        path: "/hook",
        secret: SECRET,
        handle: async () => undefined,
        answerWithinMs: 200,
        answersOnceHandled: () => false,
      },
      ...options,
    });
    await open.listen();
    return open;
  }

  it("cuts off a client whose headers do not come within the headers timeout", async () => {
    const { port } = await listening();
    const client = rawClient(port);
    client.socket.write("POST /hook HTTP/1.1\r\nHost: bot\r\n");
    const interval = setInterval(() => client.socket.write("X-Slow: 1\r\n"), 100);
    const closedAfter = await client.closed;
    clearInterval(interval);
    expect(closedAfter).toBeLessThan(2_000);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it("cuts off a body trickled past the request timeout", async () => {
    const { port } = await listening();
    const client = rawClient(port);
    client.socket.write(
      `POST /hook HTTP/1.1\r\nHost: bot\r\nX-Telegram-Bot-Api-Secret-Token: ${SECRET}\r\nContent-Length: 1000\r\n\r\n{`,
    );
    const interval = setInterval(() => client.socket.write(" "), 50);
    const closedAfter = await client.closed;
    clearInterval(interval);
    expect(closedAfter).toBeLessThan(2_500);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it("answers a wrong secret at once and closes, without waiting for the body", async () => {
    const rejected: WebhookRejection[] = [];
    const { port } = await listening({ onRejected: (reason) => rejected.push(reason) });
    const client = rawClient(port);
    // Announces 100 MB, sends 64 KB, then waits: the answer and the close come anyway.
    client.socket.write(
      `POST /hook HTTP/1.1\r\nHost: bot\r\nX-Telegram-Bot-Api-Secret-Token: wrong\r\nContent-Length: ${100 * 2 ** 20}\r\n\r\n`,
    );
    client.socket.write(Buffer.alloc(64 * 1024, 32));
    const closedAfter = await client.closed;
    expect(closedAfter).toBeLessThan(250);
    expect(client.received()).toMatch(/^HTTP\/1\.1 401[\s\S]*connection: close/i);
    expect(rejected).toEqual(["secret"]);
  });

  it("answers a body announced too large with 413 and closes; other paths and methods too", async () => {
    const { port } = await listening();
    const large = rawClient(port);
    large.socket.write(
      `POST /hook HTTP/1.1\r\nHost: bot\r\nX-Telegram-Bot-Api-Secret-Token: ${SECRET}\r\nContent-Length: ${100 * 2 ** 20}\r\n\r\n`,
    );
    expect(await large.closed).toBeLessThan(250);
    expect(large.received()).toMatch(/^HTTP\/1\.1 413/);
    for (const [request, status] of [
      ["GET /hook HTTP/1.1\r\nHost: bot\r\n\r\n", 405],
      ["PUT /other HTTP/1.1\r\nHost: bot\r\nContent-Length: 1000000\r\n\r\n", 405],
      ["GET /other HTTP/1.1\r\nHost: bot\r\n\r\n", 404],
    ] as const) {
      const client = rawClient(port);
      client.socket.write(request);
      expect(await client.closed).toBeLessThan(250);
      expect(client.received()).toMatch(
        new RegExp(`^HTTP/1\\.1 ${status}[\\s\\S]*connection: close`, "i"),
      );
    }
  });

  it("closes connections beyond the maximum", async () => {
    const { port } = await listening({ maxConnections: 2 });
    const held = [rawClient(port), rawClient(port)];
    await Promise.all(
      held.map((client) => new Promise((resolve) => client.socket.once("connect", resolve))),
    );
    await sleep(50);
    const third = rawClient(port);
    third.socket.write("GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n");
    expect(await third.closed).toBeLessThan(500);
    expect(third.received()).toBe("");
    for (const client of held) client.socket.destroy();
    await Promise.all(held.map((client) => client.closed));
    await sleep(50);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("serves /metrics only when told, and with a token only to its bearer", async () => {
    const metrics = { contentType: "text/plain", render: async () => "metric 1\n" };
    const get = (port: number, authorization?: string) =>
      fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: authorization ? { authorization } : {},
      });
    const none = await listening();
    expect((await get(none.port)).status).toBe(404);
    await none.close();
    const token = "t".repeat(40);
    const guarded = await listening({ metrics: { ...metrics, token } });
    expect((await get(guarded.port)).status).toBe(401);
    expect((await get(guarded.port, `Bearer ${token}x`)).status).toBe(401);
    expect((await get(guarded.port, `Basic ${token}`)).status).toBe(401);
    const answer = await get(guarded.port, `Bearer ${token}`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("metric 1\n");
  });

  it("pages: security headers on every answer, and a client over its share gets 429", async () => {
    let rendered = 0;
    const page = {
      path: "/page",
      render: async () => {
        rendered++;
        return { status: 200, html: "<p>hi</p>" };
      },
    };
    const { port } = await listening({ pages: [page], pagesPerClientPerMinute: 3 });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await fetch(`http://127.0.0.1:${port}/page`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429]);
    expect(rendered).toBe(3);
    for (const answer of answers) {
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
    expect(answers[3]?.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
