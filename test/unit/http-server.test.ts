import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { HttpServer, type WebhookRejection } from "../../src/adapters/http/server.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const SECRET = "s3cret_-X";

/** The updates with `"paid": true` are answered only once handled. */
const answersOnceHandled = (update: unknown) => (update as { paid?: boolean }).paid === true;

function serverWith(handle: (update: unknown) => Promise<void>, ready = () => true) {
  const rejected: WebhookRejection[] = [];
  const server = new HttpServer({
    host: "127.0.0.1",
    port: 0,
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
