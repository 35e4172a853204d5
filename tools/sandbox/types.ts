// Public types of the sandbox, shared by its modules and re-exported from server.ts.

/** How the sandbox speaks (profiles.ts): as the spec's samples, or like another provider. */
export const SANDBOX_PROFILES = ["strict", "foreign"] as const;
export type SandboxProfile = (typeof SANDBOX_PROFILES)[number];

export const SERVICE_KINDS = ["tv", "internet", "iptv"] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

export const SANDBOX_OPERATIONS = [
  "get-customer-information",
  "get-subscription-package",
  "subscription-package-topup",
  "txn-status",
] as const;
export type SandboxOperation = (typeof SANDBOX_OPERATIONS)[number];

export const API_VERSIONS = ["v1.0.0", "v1.0.1"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export type SandboxFault =
  /** Wait `ms`, then behave normally (the operation happens after the wait). */
  | { kind: "latency"; ms: number; times?: number }
  /** Perform the operation now, send its response only after `ms`. */
  | { kind: "hang-then-succeed"; ms: number; times?: number }
  /** Answer with an HTML error page; `afterEffect` performs the operation first. */
  | { kind: "http-500" | "http-502"; times?: number; afterEffect?: boolean }
  /** Answer 200 with a truncated JSON body. */
  | { kind: "malformed-json"; times?: number; afterEffect?: boolean }
  /** Destroy the socket without any response. */
  | { kind: "connection-reset"; times?: number; afterEffect?: boolean }
  /** Answer as if the bearer token were refused. */
  | { kind: "http-401"; times?: number }
  /**
   * Business failure with this code; the operation is not performed. `status` is the HTTP
   * status (default 200 in the strict profile, 409 in the foreign one); `html` sends a gateway's
   * HTML page with that status instead of JSON.
   */
  | {
      kind: "reject";
      code: string;
      message?: string;
      status?: number;
      html?: boolean;
      times?: number;
    }
  /** In-process only: perform the operation and send `transform(response)` instead. */
  | {
      kind: "transform";
      transform: (response: Record<string, unknown>) => unknown;
      times?: number;
    };

export interface SandboxOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** The accepted bearer token; default `sandbox-token`. */
  token?: string;
  /** Validity of a checkout token; default 300000 (the spec's 5 minutes). */
  checkoutTtlMs?: number;
  /** IANA zone of the `YYYY-MM-DD HH:MM:SS` dates; default `UTC`. */
  timeZone?: string;
  /** The sandbox clock (seed dates, checkout expiry, transaction dates); default real time. */
  now?: () => Date;
  /** How it speaks: `strict` (default) or `foreign` (see profiles.ts). */
  profile?: SandboxProfile;
}

export interface RecordedRequest {
  operation: SandboxOperation;
  version: ApiVersion;
  staging: boolean;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  contentType: string | undefined;
  /** Whether the bearer token was the configured one (an `http-401` fault does not change it). */
  authorized: boolean;
  at: Date;
}

/** The transaction as the provider sends it in `body.result`. */
export interface WireTransaction {
  orderId: string;
  txnId: string;
  cuid: string;
  reqId: string;
  bouquetId: string;
  amt: number;
  txnDate: string;
  status: "success";
  service: ServiceKind;
}

/** An executed top-up: the wire result plus what only the sandbox sees. */
export interface SandboxTransaction extends WireTransaction {
  version: ApiVersion;
  /** As received on v1.0.1; always undefined on v1.0.0, which ignores them. */
  udf1: string | undefined;
  udf2: string | undefined;
}

interface DirectoryConnection {
  service: ServiceKind;
  id: string;
  status: string;
}

/** One test customer, for a UI side panel or a test's fixture lookup. */
export interface DirectoryEntry {
  cuid: string;
  name: string;
  mobile: string;
  connections: DirectoryConnection[];
  status: string;
  /** What this customer is there to exercise. */
  note: string;
}

export interface Sandbox {
  /** `http://<host>:<port>` */
  readonly origin: string;
  /** The origin, or origin + `/staging`; clients append `/api/third-party/<version>/<op>`. */
  baseUrl(options?: { staging?: boolean }): string;
  /** Every request received on an operation path (failed ones too), in order. */
  readonly requests: readonly RecordedRequest[];
  /** Every executed top-up, in order. */
  readonly topups: readonly SandboxTransaction[];
  /** How it speaks from now on; a reset keeps it. */
  profile: SandboxProfile;
  /** Replaces the operation's fault; `times` omitted = until cleared. */
  setFault(operation: SandboxOperation, fault: SandboxFault): void;
  clearFaults(): void;
  /** Back to seed data (re-seeded from the clock now); record and faults cleared. */
  reset(): void;
  directory(): DirectoryEntry[];
  /** Closes promptly, destroying open sockets and abandoning delayed responses. */
  close(): Promise<void>;
}
