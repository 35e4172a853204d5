// A throwaway self-signed certificate for 127.0.0.1, and Node trusting it for a while: as an
// operator would trust a private CA with NODE_EXTRA_CA_CERTS. Certificates are checked all the
// while (never NODE_TLS_REJECT_UNAUTHORIZED=0): only this one is added to those trusted.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getCACertificates, setDefaultCACertificates } from "node:tls";

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
      // A client checks an address against the certificate's IP names, never its CN.
      "-addext",
      "subjectAltName=IP:127.0.0.1",
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

/** Runs `work` with `certificate` trusted by every TLS client of this process, then no longer. */
export async function trusting<T>(certificate: Certificate, work: () => Promise<T>): Promise<T> {
  const previous = getCACertificates("default");
  setDefaultCACertificates([...previous, certificate.cert]);
  try {
    return await work();
  } finally {
    setDefaultCACertificates(previous);
  }
}
