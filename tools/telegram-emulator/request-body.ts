// Reads a Bot API request into Params: query string plus a JSON, urlencoded or
// multipart/form-data body (grammY switches to multipart as soon as a file is uploaded).

import type { IncomingMessage } from "node:http";
import { badRequest } from "./api-error.js";
import { Params, type UploadedFile } from "./params.js";

export async function readParams(
  request: IncomingMessage,
  query: URLSearchParams,
): Promise<Params> {
  const fields: Record<string, unknown> = Object.fromEntries(query);
  const uploads = new Map<string, UploadedFile>();
  const body = await readBody(request);
  const contentType = request.headers["content-type"] ?? "";
  if (body.length === 0) return new Params(fields, uploads);

  if (/^application\/json/i.test(contentType)) {
    Object.assign(fields, parseJsonObject(body.toString("utf8")));
  } else if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
    Object.assign(fields, Object.fromEntries(new URLSearchParams(body.toString("utf8"))));
  } else if (/^multipart\/form-data/i.test(contentType)) {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (!boundary) throw badRequest("can't parse multipart/form-data request");
    for (const part of parseMultipart(body, boundary)) {
      if (part.filename === undefined) fields[part.name] = part.content.toString("utf8");
      else uploads.set(part.name, { filename: part.filename, bytes: part.content });
    }
  }
  return new Params(fields, uploads);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("can't parse JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("can't parse JSON object");
  }
  return value as Record<string, unknown>;
}

interface MultipartPart {
  name: string;
  filename: string | undefined;
  content: Buffer;
}

function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let position = body.indexOf(delimiter);
  while (position !== -1) {
    const start = position + delimiter.length + 2; // skip CRLF (or the closing "--")
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    const raw = body.subarray(start, next - 2); // the CRLF before the delimiter is not content
    const headerEnd = raw.indexOf("\r\n\r\n");
    if (headerEnd === -1) throw badRequest("can't parse multipart/form-data request");
    const headers = raw.subarray(0, headerEnd).toString("utf8");
    const name = /(?:^|;)\s*name="?([^";\r\n]*)"?/im.exec(headers)?.[1];
    if (name !== undefined) {
      const filename = /(?:^|;)\s*filename="?([^";\r\n]*)"?/im.exec(headers)?.[1];
      parts.push({ name, filename, content: raw.subarray(headerEnd + 4) });
    }
    position = next;
  }
  return parts;
}
