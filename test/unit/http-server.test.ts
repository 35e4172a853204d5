import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  HttpServer,
  type HttpServerOptions,
  type WebhookRejection,
} from "../../src/adapters/http/server.js";
import { until } from "../support/wait.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const SECRET = "s3cret_-X".repeat(4);
/** Short limits, so that a late client is cut off within the test's seconds. */
const LIMITS = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 800,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 100,
};

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

  /** Raw clients, connected (the server has taken them in once the next one is). */
  async function connected(port: number, count: number) {
    const clients = Array.from({ length: count }, () => rawClient(port));
    await Promise.all(
      clients.map((client) => new Promise((resolve) => client.socket.once("connect", resolve))),
    );
    return clients;
  }

  /** Webhook updates answered only once `release` is called; `started` counts them. */
  function busyWebhook() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const busy = {
      started: 0,
      release: () => release(),
      webhook: {
        path: "/hook",
        secret: SECRET,
        handle: () => {
          busy.started++;
          return released;
        },
        answerWithinMs: 200,
        answersOnceHandled,
      },
    };
    return busy;
  }

  const CONFIRMATION = `POST /hook HTTP/1.1\r\nHost: bot\r\nX-Telegram-Bot-Api-Secret-Token: ${SECRET}\r\nContent-Type: application/json\r\nContent-Length: 28\r\n\r\n{"update_id":1,"paid":true}\n`;
  const HEALTH = "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n";
  const answered = (client: { received(): string }) =>
    until(() => client.received().startsWith("HTTP/1.1 200"), 2_000);

  it("at its cap closes the least recently active idle connection for a new one, never a busy one", async () => {
    const busy = busyWebhook();
    const { port } = await listening({ maxConnections: 3, webhook: busy.webhook });
    const [first, second, third] = await connected(port, 3);
    if (!first || !second || !third) throw new Error("not connected");
    // The first turns busy; the second and third stay idle (the second the older).
    first.socket.write(CONFIRMATION);
    await until(() => busy.started === 1, 1_000);
    const [fourth] = await connected(port, 1);
    if (!fourth) throw new Error("not connected");
    fourth.socket.write(HEALTH);
    await answered(fourth);
    await second.closed;
    expect(third.socket.destroyed).toBe(false);
    expect(first.socket.destroyed).toBe(false);
    busy.release();
    await answered(first);
    for (const client of [first, third, fourth]) client.socket.destroy();
  });

  it("refuses a new connection only when every connection in the way is busy", async () => {
    const busy = busyWebhook();
    const { port } = await listening({ maxConnections: 2, webhook: busy.webhook });
    const held = await connected(port, 2);
    for (const client of held) client.socket.write(CONFIRMATION);
    await until(() => busy.started === 2, 1_000);
    const refused = rawClient(port);
    refused.socket.write(HEALTH);
    expect(await refused.closed).toBeLessThan(500);
    expect(refused.received()).toBe("");
    busy.release();
    for (const client of held) {
      await answered(client);
      client.socket.destroy();
    }
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("keeps one client address within its share the same way", async () => {
    const busy = busyWebhook();
    const { port } = await listening({ maxConnectionsPerClient: 2, webhook: busy.webhook });
    const [first, second] = await connected(port, 2);
    if (!first || !second) throw new Error("not connected");
    first.socket.write(CONFIRMATION);
    await until(() => busy.started === 1, 1_000);
    // The address's idle connection makes room; its busy one is kept.
    const [third] = await connected(port, 1);
    if (!third) throw new Error("not connected");
    await second.closed;
    expect(first.socket.destroyed).toBe(false);
    third.socket.write(CONFIRMATION);
    await until(() => busy.started === 2, 1_000);
    // Both of the address's connections are busy now: the next one is refused.
    const refused = rawClient(port);
    expect(await refused.closed).toBeLessThan(500);
    expect(refused.received()).toBe("");
    busy.release();
    for (const client of [first, third]) {
      await answered(client);
      client.socket.destroy();
    }
  });

  it("closes an idle keep-alive connection after the keep-alive timeout, and a silent one after the headers timeout", async () => {
    const { port } = await listening({ keepAliveTimeoutMs: 200 });
    const kept = rawClient(port);
    kept.socket.write(HEALTH);
    const silent = rawClient(port);
    expect(await kept.closed).toBeLessThan(1_500);
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200[\s\S]*keep-alive/i);
    expect(await silent.closed).toBeLessThan(1_500);
    expect(silent.received()).toMatch(/^(HTTP\/1\.1 408|$)/);
  });

  it("answers a webhook and a page with 1,000 idle keep-alive connections open", async () => {
    const handled: unknown[] = [];
    const page = { path: "/page", render: async () => ({ status: 200, html: "<p>hi</p>" }) };
    const server = await listening({
      // Time enough for a thousand connections to send their request on a busy machine.
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 10_000,
      maxConnections: 1_000,
      maxConnectionsPerClient: 1_000,
      pages: [page],
      webhook: {
        path: "/hook",
        secret: SECRET,
        handle: async (update) => void handled.push(update),
        answerWithinMs: 200,
        answersOnceHandled,
      },
    });
    const idle = await connected(server.port, 1_000);
    for (const client of idle) client.socket.write(HEALTH);
    await until(() => idle.every((client) => client.received().includes("ok")), 10_000);
    expect((await post(server, '{"update_id":7}')).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${server.port}/page`)).status).toBe(200);
    expect(handled).toEqual([{ update_id: 7 }]);
    // Room was made by closing idle ones, never by refusing.
    await until(() => idle.some((client) => client.socket.destroyed), 2_000);
    for (const client of idle) client.socket.destroy();
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

  it("pages: styles from the server's own stylesheet only, no inline style, no script", async () => {
    const page = { path: "/page", render: async () => ({ status: 200, html: "<p>hi</p>" }) };
    const form = { ...page, path: "/form", formAction: "https://pay.example" };
    const { port } = await listening({ pages: [page, form] });
    for (const path of ["/page", "/form"]) {
      const csp = (await fetch(`http://127.0.0.1:${port}${path}`)).headers.get(
        "content-security-policy",
      );
      const directives = (csp ?? "").split(";").map((directive) => directive.trim());
      expect(directives).toContain("default-src 'none'");
      expect(directives).toContain("style-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("script-src");
    }
  });

  it("the stylesheet: served as CSS with the pages' headers, kept a day, outside the pages' limit", async () => {
    let rendered = 0;
    const page = {
      path: "/page",
      render: async () => {
        rendered++;
        return { status: 200, html: "<p>hi</p>" };
      },
    };
    const css = "body { color: black; }\n";
    const { port } = await listening({
      pages: [page],
      pagesPerClientPerMinute: 1,
      stylesheet: { path: "/pay/style.css", css },
    });
    const url = `http://127.0.0.1:${port}/pay/style.css`;
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${url}?v=${i}`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe(css);
      expect(answer.headers.get("content-type")).toBe("text/css; charset=utf-8");
      expect(answer.headers.get("cache-control")).toBe("public, max-age=86400");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
      expect(answer.headers.get("content-security-policy")).toContain("default-src 'none'");
    }
    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(url, { method: "POST" })).status).toBe(405);
    expect((await fetch(`http://127.0.0.1:${port}/pay/other.css`)).status).toBe(404);
    // The stylesheet took nothing of the client's one page a minute.
    expect((await fetch(`http://127.0.0.1:${port}/page`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/page`)).status).toBe(429);
    expect(rendered).toBe(1);
  });
});
