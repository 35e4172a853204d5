// Fonepay's dynamic QR messages as the bot writes and reads them: the QR request's values
// within Fonepay's character rules, the QR answer, the status answer and the socket's messages.
// Only what a payment needs is read, leniently; nothing depends on a message's wording.

/** remarks1 and remarks2: 1–25 letters and digits each, both required. */
const REMARKS_LENGTH = 25;
/** amount: digits with at most one `.`, 1–10 characters. */
const AMOUNT = /^(?=.{1,10}$)\d+(\.\d+)?$/;

/** A text within Fonepay's remarks rule: its letters and digits (ASCII), at most 25; `fallback` when none. */
export function remarksOf(text: string, fallback: string): string {
  const kept = text
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, REMARKS_LENGTH);
  return kept || fallback;
}

/** The amount as Fonepay takes it, or null when it cannot (too long). */
export function amountText(amount: string): string | null {
  return AMOUNT.test(amount) ? amount : null;
}

const field = (body: unknown, name: string): unknown =>
  typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;

/**
 * A socket URL listened to: wss, plain ws only on this machine (a sandbox). Hints over plain
 * text could be forged on the way; without a socket the status checks find the payment anyway.
 */
function secureSocket(url: string): boolean {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  return (
    parsed?.protocol === "wss:" ||
    (parsed?.protocol === "ws:" && ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname))
  );
}

export type QrAnswer =
  | { kind: "created"; qrMessage: string; webSocketUrl: string | null }
  /** Fonepay's own refusal (errorCode 406 and the like): said plainly, never retried blindly. */
  | { kind: "refused"; code: string; message: string }
  /** Anything else: no QR, nothing known. */
  | { kind: "unreadable" };

/** The QR request's answer: a QR text, Fonepay's refusal, or nothing readable. */
export function readQrAnswer(status: number, body: unknown): QrAnswer {
  const qrMessage = field(body, "qrMessage");
  if (
    status < 300 &&
    field(body, "success") === true &&
    typeof qrMessage === "string" &&
    qrMessage
  ) {
    const socket = field(body, "thirdpartyQrWebSocketUrl");
    return {
      kind: "created",
      qrMessage,
      webSocketUrl: typeof socket === "string" && secureSocket(socket) ? socket : null,
    };
  }
  // Fonepay's own shape only ({errorCode, message}): a gateway's or proxy's JSON error on the
  // way ({statusCode: 404, message: "Not Found"}) is nothing Fonepay said.
  const code = field(body, "errorCode");
  const message = field(body, "message");
  if (status < 500 && (typeof code === "number" || typeof code === "string")) {
    return {
      kind: "refused",
      code: String(code),
      message: typeof message === "string" ? message.slice(0, 200) : "",
    };
  }
  return { kind: "unreadable" };
}

export type StatusAnswer =
  /** `success` for this prn: paid (the amount is the one bound to the prn on our side). */
  | { state: "paid"; traceId: string | null }
  /** `failed`: final only once the QR can no longer be paid. */
  | { state: "failed" }
  /**
   * Any other value (`pending`: the bank has not settled a payment yet; the document's own
   * pending example reads oddly): not final, and not "nothing paid" either.
   */
  | { state: "pending" }
  /** No answer of Fonepay's about this prn: asked again. */
  | { state: "unknown"; reason: string };

/**
 * The status call's answer about `prn`, for `merchantCode`: Fonepay's word only when it names
 * that prn (its published answer always does; a gateway's or a cache's body with a
 * `paymentStatus` but no prn is about nothing we asked) and, when it names a merchant, ours.
 */
export function readStatusAnswer(
  status: number,
  body: unknown,
  prn: string,
  merchantCode: string,
): StatusAnswer {
  if (status >= 300) return { state: "unknown", reason: `answered ${status}` };
  const paymentStatus = field(body, "paymentStatus");
  if (typeof paymentStatus !== "string") return { state: "unknown", reason: "no paymentStatus" };
  const answeredPrn = field(body, "prn");
  if (typeof answeredPrn !== "string" && typeof answeredPrn !== "number") {
    return { state: "unknown", reason: "the answer names no prn" };
  }
  if (String(answeredPrn) !== prn) {
    return { state: "unknown", reason: "the answer names another prn" };
  }
  const merchant = field(body, "merchantCode");
  if (merchant !== undefined && String(merchant) !== merchantCode) {
    return { state: "unknown", reason: "the answer names another merchant" };
  }
  switch (paymentStatus.trim().toLowerCase()) {
    case "success": {
      const trace = field(body, "fonepayTraceId");
      const traceId =
        typeof trace === "string" || typeof trace === "number" ? String(trace) || null : null;
      return { state: "paid", traceId };
    }
    case "failed":
      return { state: "failed" };
    default:
      return { state: "pending" };
  }
}

export type SocketHint =
  /** The QR was scanned (VERIFIED): the buyer is told to wait for the bank. */
  | { kind: "scanned" }
  /** The bank's word on the payment, success or not: only a reason to ask the status call now. */
  | { kind: "payment"; success: boolean }
  | { kind: "other" };

/**
 * A socket message: `{transactionStatus}` whose value is itself JSON text (an object is taken
 * too). A hint only: never a payment.
 */
export function readSocketMessage(text: string): SocketHint {
  const outer = parseFonepayJson(text);
  const inner = field(outer, "transactionStatus");
  const status = typeof inner === "string" ? parseFonepayJson(inner) : inner;
  if (typeof status !== "object" || status === null) return { kind: "other" };
  if (field(status, "paymentSuccess") !== undefined || field(status, "traceId") !== undefined) {
    return { kind: "payment", success: field(status, "paymentSuccess") === true };
  }
  if (field(status, "QRVerified") === true || field(status, "message") === "VERIFIED") {
    return { kind: "scanned" };
  }
  return { kind: "other" };
}

/** Fields Fonepay writes as JSON numbers that are references, not quantities. */
const REFERENCES = new Set(["fonepayTraceId", "traceId"]);

/**
 * A Fonepay body as JSON, or null when it is not. A trace id written as a number keeps its
 * digits as text (from the source, Node's JSON.parse context): a plain parse rounds one beyond
 * 2^53, and it is what a refund is made by.
 */
export function parseFonepayJson(text: string): unknown {
  try {
    return JSON.parse(text, (key, value: unknown, context?: { source?: string }) =>
      REFERENCES.has(key) && typeof value === "number" && context?.source !== undefined
        ? context.source
        : value,
    );
  } catch {
    return null;
  }
}
