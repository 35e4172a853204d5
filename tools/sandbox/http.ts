// Low-level request/response helpers. Writes are skipped once the client has gone: a caller
// that stopped waiting must never crash the sandbox.

import type { IncomingMessage, ServerResponse } from "node:http";

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A request body as parsed; `valid: false` when it was not JSON. */
export type ParsedBody = { valid: true; value: unknown } | { valid: false };

export function parseJson(text: string): ParsedBody {
  try {
    return { valid: true, value: JSON.parse(text) };
  } catch {
    return { valid: false };
  }
}

export function sendText(
  response: ServerResponse,
  status: number,
  contentType: string,
  text: string,
): void {
  if (response.destroyed || response.headersSent) return;
  response.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  sendText(response, status, "application/json; charset=utf-8", JSON.stringify(value));
}
