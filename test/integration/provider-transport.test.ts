// The provider's HTTP client against servers of the test's own: an https provider (node:https
// is loaded only for one), and the three timeouts (connecting, headers, a pause in the body),
// each said sent or not sent, because a top-up's fate depends on it.
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { ProviderTransport, TransportFailure } from "../../src/adapters/provider/transport.js";
import { throwawayCertificate, trusting } from "../support/certificate.js";

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

async function listen(server: Server, handler: Handler, scheme = "http"): Promise<string> {
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => handler(request, response, body));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return `${scheme}://127.0.0.1:${port}`;
}

const transport = (baseUrl: string, timeoutMs = 2_000) =>
  new ProviderTransport({ baseUrl, version: "v1.0.1", token: "secret-token", timeoutMs });

const envelope = JSON.stringify({ success: true, code: "ok", body: { answer: 42 } });

describe("the provider over https", () => {
  const certificate = throwawayCertificate();
  afterAll(() => certificate.remove());

  it("posts the JSON with the token and reads the envelope", async () => {
    const seen: { path?: string; authorization?: string; body?: string }[] = [];
    const server = createHttpsServer({ key: certificate.key, cert: certificate.cert });
    const base = await listen(
      server,
      (request, response, body) => {
        seen.push({ path: request.url, authorization: request.headers.authorization, body });
        response.setHeader("content-type", "application/json").end(envelope);
      },
      "https",
    );
    const client = transport(`${base}/gateway/`);
    // Certificates are checked: one nobody trusts is refused, and nothing reaches the server.
    await expect(client.post("get-customer-information", { cuid: "7" })).rejects.toThrow(
      TransportFailure,
    );
    expect(seen).toEqual([]);
    const answer = await trusting(certificate, () =>
      client.post("get-customer-information", { cuid: "7" }),
    );
    await client.close();
    expect(answer.body).toEqual({ answer: 42 });
    expect(seen).toEqual([
      {
        path: "/gateway/api/third-party/v1.0.1/get-customer-information",
        authorization: "Bearer secret-token",
        body: '{"cuid":"7"}',
      },
    ]);
  });
});

describe("timeouts", () => {
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected a failure");
      },
      (error: unknown) => error as TransportFailure,
    );

  it("no headers in time: sent, no answer", async () => {
    const base = await listen(createServer(), () => undefined);
    const failure = await failureOf(transport(base, 150).post("txn-status", {}));
    expect(failure).toBeInstanceOf(TransportFailure);
    expect(failure.sent).toBe(true);
    expect(failure.message).toContain("no answer within 150 ms");
  });

  it("a body that stops half way: sent, no answer", async () => {
    const base = await listen(createServer(), (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"success":');
    });
    const failure = await failureOf(transport(base, 150).post("subscription-package-topup", {}));
    expect(failure.sent).toBe(true);
    expect(failure.message).toContain("no answer within 150 ms");
  });

  it("a slow body whose pauses are each short is read whole", async () => {
    const base = await listen(createServer(), (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const parts = [envelope.slice(0, 10), envelope.slice(10, 20), envelope.slice(20)];
      const next = () => {
        const part = parts.shift();
        if (part === undefined) response.end();
        else {
          response.write(part);
          setTimeout(next, 100);
        }
      };
      next();
    });
    const answer = await transport(base, 150).post("txn-status", {});
    expect(answer.body).toEqual({ answer: 42 });
  });

  it("a connection never accepted: not sent", async () => {
    // A socket that listens and never accepts (Node's servers always accept): once its queue
    // is full, the kernel leaves further connection attempts hanging.
    const listener = spawn("python3", ["-c", NEVER_ACCEPTS], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    try {
      const port = Number(await new Promise<string>((done) => listener.stdout.once("data", done)));
      const fillers = [0, 1, 2].map(() => connect(port, "127.0.0.1"));
      const failure = await failureOf(
        transport(`http://127.0.0.1:${port}`, 300).post("txn-status", {}),
      );
      for (const filler of fillers) filler.destroy();
      expect(failure.sent).toBe(false);
      expect(failure.message).toContain("PROVIDER_CONNECT_TIMEOUT");
    } finally {
      listener.kill("SIGKILL");
    }
  });
});

const NEVER_ACCEPTS = [
  "import socket, time",
  "s = socket.socket()",
  "s.bind(('127.0.0.1', 0))",
  "s.listen(0)",
  "print(s.getsockname()[1], flush=True)",
  "time.sleep(30)",
].join("\n");
