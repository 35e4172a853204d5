// Request/response helpers of the payment systems' sandboxes (Khalti's, eSewa's). Writes are
// skipped once the client has gone: a caller that stopped waiting must never crash a sandbox.

import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A request body as parsed; an empty body counts as `{}` (a Khalti refund sends none). */
type ParsedBody = { valid: true; value: unknown } | { valid: false; error: string };

export function parseJson(text: string): ParsedBody {
  if (text.trim() === "") return { valid: true, value: {} };
  try {
    return { valid: true, value: JSON.parse(text) };
  } catch (error) {
    return { valid: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  text: string,
): void {
  if (response.destroyed || response.headersSent) return;
  response.writeHead(status, { ...headers, "content-length": String(Buffer.byteLength(text)) });
  response.end(text);
}

/** JSON already written (eSewa's amounts keep their text: see esewa-sandbox/wire.ts). */
export function sendJsonText(response: ServerResponse, status: number, json: string): void {
  send(response, status, { "content-type": "application/json" }, json);
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  sendJsonText(response, status, JSON.stringify(value));
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  send(response, status, { "content-type": "text/html; charset=utf-8" }, html);
}

export function redirect(response: ServerResponse, location: string): void {
  send(response, 302, { location, "content-type": "text/plain; charset=utf-8" }, "");
}

/** A sandbox's server listening: its origin, and `close` ending every connection still open. */
export interface Listening {
  origin: string;
  close(): Promise<void>;
}

/** Listens on `host`:`port` (0: a free port) and keeps track of the connections to end them. */
export async function listen(server: Server, host: string, port = 0): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
