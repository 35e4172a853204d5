// A gateway of the test's own (loopback only) in front of a sandbox: it forwards every request
// and relays the answer unless the test's handler says otherwise: answer something else after
// forwarding (the call was executed, its answer lost), instead of forwarding, or forward an
// altered body.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface GatewayAnswer {
  status: number;
  contentType: string;
  text: string;
  /** Headers of the gateway's own (Retry-After), beside the content type. */
  headers?: Record<string, string>;
}

interface GatewayRequest {
  path: string;
  body: string;
}

/** Forwards the request (with `body` instead of the request's own, when given). */
type Forward = (body?: string) => Promise<GatewayAnswer>;

type GatewayHandler = (request: GatewayRequest, forward: Forward) => Promise<GatewayAnswer>;

export interface GatewayProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** How the next requests are answered; forwarding them unchanged by default. */
  handle: GatewayHandler;
  close(): Promise<void>;
}

const passThrough: GatewayHandler = (_, forward) => forward();

/** What a gateway sends when it has an error of its own: not the service's JSON. */
export function gatewayPage(status: number, title: string): GatewayAnswer {
  return {
    status,
    contentType: "text/html",
    text: `<html><head><title>${status} ${title}</title></head><body><h1>${title}</h1><hr>nginx</body></html>`,
  };
}

/** `target()` is the sandbox's base URL, asked at each request (it may start later). */
export async function startGatewayProxy(target: () => string | undefined): Promise<GatewayProxy> {
  const proxy = { handle: passThrough };
  const server = createServer((incoming, outgoing) => {
    void readBody(incoming)
      .then((body) => {
        const forward: Forward = (altered) => relay(target(), incoming, altered ?? body);
        return proxy.handle({ path: incoming.url ?? "/", body }, forward);
      })
      .catch((): GatewayAnswer => gatewayPage(502, "Bad Gateway"))
      .then((answer) => {
        outgoing.writeHead(answer.status, {
          "content-type": answer.contentType,
          ...answer.headers,
        });
        outgoing.end(answer.text);
      });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((done) => server.close(() => done()));
    },
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function relay(
  base: string | undefined,
  incoming: IncomingMessage,
  body: string,
): Promise<GatewayAnswer> {
  if (!base) return gatewayPage(503, "Service Unavailable");
  const headers: Record<string, string> = {};
  for (const name of ["authorization", "content-type", "accept"]) {
    const value = incoming.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const method = incoming.method ?? "GET";
  const response = await fetch(new URL(incoming.url ?? "/", base), {
    method,
    headers,
    ...(method !== "GET" && method !== "HEAD" && { body }),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "application/octet-stream",
    text: await response.text(),
  };
}
