// Typed access to a method's parameters. The Bot API accepts every parameter as a string
// too (query string, urlencoded and multipart bodies), so numbers, booleans and JSON
// objects are coerced the way Telegram does.

import { badRequest } from "./api-error.js";

export interface UploadedFile {
  filename: string;
  bytes: Buffer;
}

export class Params {
  constructor(
    readonly fields: Readonly<Record<string, unknown>>,
    private readonly uploads: ReadonlyMap<string, UploadedFile> = new Map(),
  ) {}

  string(name: string): string | undefined {
    const value = this.fields[name];
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "bigint") return String(value);
    return undefined;
  }

  integer(name: string): number | undefined {
    const value = this.fields[name];
    if (typeof value === "number" && Number.isSafeInteger(value)) return value;
    if (typeof value === "string" && /^\s*-?\d+\s*$/.test(value)) {
      const parsed = Number(value);
      return Number.isSafeInteger(parsed) ? parsed : undefined;
    }
    return undefined;
  }

  boolean(name: string): boolean {
    const value = this.fields[name];
    if (typeof value === "string") return value === "true" || value === "1";
    return value === true || value === 1;
  }

  /** A JSON-serialized object or array parameter; undefined when absent. */
  json(name: string): unknown {
    const value = this.fields[name];
    if (typeof value !== "string") return value ?? undefined;
    if (value === "") return undefined;
    try {
      return JSON.parse(value);
    } catch {
      throw badRequest(`can't parse ${name} JSON object`);
    }
  }

  /** An uploaded file, given directly as a multipart part or as "attach://<part>". */
  upload(name: string): UploadedFile | undefined {
    const direct = this.uploads.get(name);
    if (direct) return direct;
    const reference = /^attach:\/\/(.+)$/.exec(this.string(name) ?? "");
    return reference?.[1] === undefined ? undefined : this.uploads.get(reference[1]);
  }
}
