// A throwaway self-signed certificate for 127.0.0.1, and Node trusting it for a while: as an
// operator would trust a private CA with NODE_EXTRA_CA_CERTS.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Certificate {
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
  remove(): void;
}

export function throwawayCertificate(): Certificate {
  const dir = mkdtempSync(join(tmpdir(), "tls-"));
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
    ].concat(["-keyout", keyFile, "-out", certFile]),
    { stdio: "ignore" },
  );
  return {
    keyFile,
    certFile,
    key: readFileSync(keyFile, "utf8"),
    cert: readFileSync(certFile, "utf8"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs `work` with self-signed certificates accepted (Node's own setting), then restores it. */
export async function trustingSelfSigned<T>(work: () => Promise<T>): Promise<T> {
  const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
  }
}
