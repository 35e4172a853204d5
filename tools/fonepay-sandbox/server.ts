// createFonepaySandbox: an in-memory fake of Fonepay's dynamic QR interface (v1.1) for tests
// and manual runs: the QR request (its dataValidation checked: errorCode 406 on a bad one),
// a valid EMVCo QR text, a WebSocket per QR that pushes "VERIFIED" and the payment, the status
// call, a page that shows the QR with a bank app's buttons, faults, and a record of what it got.
// It knows nothing of the bot, and checks and signs with code of its own (wire.ts).
//
//   const fonepay = await createFonepaySandbox();   // fonepay123 / bijayk / password / fonepay
//   //   POST ${fonepay.apiUrl}/merchant/merchantDetailsForThirdParty/thirdPartyDynamicQrDownload
//   //     {amount, prn, remarks1, remarks2, merchantCode, username, password, dataValidation}
//   //     → {success: true, status: "CREATED", statusCode: 201, message, qrMessage,
//   //        thirdpartyQrWebSocketUrl: ws://…/convergent-webSocket-web/merchantEndPoint/thirdparty/<prn>}
//   //   POST ${fonepay.apiUrl}/merchant/merchantDetailsForThirdParty/thirdPartyDynamicQrGetStatus
//   //     {prn, merchantCode, username, password, dataValidation} → {fonepayTraceId, merchantCode, prn, paymentStatus}
//   //   the page ${fonepay.url}/qr/<prn>: the QR, Scan / Pay / Fail / Leave pending (every
//   //   QR listed at ${fonepay.url}/)
//   fonepay.scan(prn) / pay(prn) / fail(prn) / leavePending(prn)   the bank app, without a browser
//   fonepay.payments() / payment(prn) / sockets(prn?)               snapshots; sockets open now
//   fonepay.faults.socket("refuse" | "drop" | "normal")   sockets never open, or close at once
//   fonepay.faults.dropSockets()                            every open socket closed now
//   fonepay.faults.statusLags(times)                       the next status calls of a paid QR: pending
//   fonepay.faults.claimSuccess(prn)                       the socket says paid; status says failed
//   fonepay.faults.fail("qr" | "status", times, how?)       HTTP 500 (JSON) or 502 (a gateway's HTML)
//   fonepay.faults.slow("qr" | "status", ms, times?)        answers that come late
//   fonepay.faults.badChecksum(times?)                      QR texts whose checksum does not hold
//   fonepay.faults.oddQr("no-amount" | "other-currency", times?)  QR texts (checksum holding)
//                                                            without amount, or not in rupees
//   fonepay.faults.refuseQr(message, times?)                QR requests refused (406, that message)
//   fonepay.calls.requests / statusChecks(prn?)
//   fonepay.reset(); await fonepay.close();
//
// What Fonepay does and the sandbox copies: an unknown merchant code, a wrong username or
// password, or a dataValidation that does not verify (hex in either case) is refused with
// {errorCode: 406, message: "Invalid Merchant Code" | "Invalid username" | "Data Validation
// Failed"} (HTTP 406 here); so are an amount that is not digits with at most one point (1–10
// characters), a prn of more than 25 characters or one used before, and remarks that are not
// 1–25 letters and digits. A QR not paid yet reads `failed`, as the document's own pending
// example reads (so does a prn never created); `pending` is a payment the bank has not settled
// (left pending, or a paid QR while the status lags); a failed one can still be paid (a bank app
// may try again) until the sandbox is told otherwise. The same steering over HTTP: /_sandbox/ (below).

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type WebSocket, WebSocketServer } from "ws";
import { handleControl, type JsonObject } from "../payment-fakes/control.js";
import { type Countdown, countdown, take } from "../payment-fakes/countdown.js";
import {
  listen,
  parseJson,
  readBody,
  redirect,
  sendHtml,
  sendJson,
} from "../payment-fakes/http.js";
import { fonepayLook, indexPage, PAGE_PREFIX, pagePath, qrPage, unknownPage } from "./page.js";
import {
  fonepayDate,
  type OddQr,
  QR_PATH,
  qrText,
  refusal,
  SOCKET_PREFIX,
  STATUS_PATH,
  signatureHolds,
  socketMessage,
  spoilt,
} from "./wire.js";

/** Fonepay's published test credentials, the sandbox's defaults (never production's). */
export const TEST_MERCHANT = {
  merchantCode: "fonepay123",
  username: "bijayk",
  password: "password",
  secretKey: "fonepay",
} as const;

export type QrStatus = "CREATED" | "SCANNED" | "success" | "failed" | "pending";

export interface FonepayPayment {
  prn: string;
  amount: string;
  paisa: number;
  remarks1: string;
  remarks2: string;
  qrMessage: string;
  status: QrStatus;
  traceId: number | null;
  createdAt: string;
  paidAt: string | null;
}

export interface FonepayRequest {
  endpoint: "qr" | "status" | "socket";
  prn: string | null;
  /** The answer's HTTP status (101 for a socket opened). */
  status: number;
  at: string;
}

type Endpoint = "qr" | "status";
type Failure = "http-500" | "http-502-html";

class Faults {
  socketMode: "normal" | "refuse" | "drop" = "normal";
  private lag: Countdown<true> | undefined;
  private readonly claimed_ = new Set<string>();
  private readonly failures = new Map<Endpoint, Countdown<Failure>>();
  private readonly slowness = new Map<Endpoint, Countdown<number>>();
  private checksum: Countdown<true> | undefined;
  private odd: Countdown<OddQr> | undefined;
  private refusal: Countdown<string> | undefined;
  constructor(
    private readonly dropAll: () => void,
    private readonly claimed: (prn: string) => void,
  ) {}

  socket(mode: "normal" | "refuse" | "drop"): void {
    if (!["normal", "refuse", "drop"].includes(mode)) {
      throw new RangeError(`socket fault is normal, refuse or drop, not "${mode}"`);
    }
    this.socketMode = mode;
    if (mode === "drop") this.dropAll();
  }
  dropSockets(): void {
    this.dropAll();
  }
  statusLags(times: number): void {
    this.lag = countdown(times, true);
  }
  /** The socket of this QR says it was paid (now, or when it opens); the status call does not. */
  claimSuccess(prn: string): void {
    this.claimed_.add(prn);
    this.claimed(prn);
  }
  fail(endpoint: Endpoint, times: number, how: Failure = "http-500"): void {
    if (!["qr", "status"].includes(endpoint)) throw new RangeError(`no endpoint "${endpoint}"`);
    if (!["http-500", "http-502-html"].includes(how)) throw new RangeError(`no failure "${how}"`);
    this.failures.set(endpoint, countdown(times, how));
  }
  slow(endpoint: Endpoint, ms: number, times = Number.POSITIVE_INFINITY): void {
    if (!(Number.isInteger(ms) && ms > 0)) throw new RangeError(`a delay is whole ms, got ${ms}`);
    this.slowness.set(endpoint, countdown(times, ms));
  }
  badChecksum(times = 1): void {
    this.checksum = countdown(times, true);
  }
  /** The next QR texts without an amount, or in another currency (their checksum holding). */
  oddQr(how: OddQr, times = 1): void {
    if (!["no-amount", "other-currency"].includes(how)) {
      throw new RangeError(`an odd QR is no-amount or other-currency, not "${how}"`);
    }
    this.odd = countdown(times, how);
  }
  /** The next QR requests refused with errorCode 406 and this message. */
  refuseQr(message: string, times = 1): void {
    this.refusal = countdown(times, message);
  }
  clear(): void {
    this.socketMode = "normal";
    this.lag = undefined;
    this.claimed_.clear();
    this.failures.clear();
    this.slowness.clear();
    this.checksum = undefined;
    this.odd = undefined;
    this.refusal = undefined;
  }
  takeLag = () => take(this.lag) === true;
  claims = (prn: string) => this.claimed_.has(prn);
  takeFailure = (endpoint: Endpoint) => take(this.failures.get(endpoint));
  takeSlowness = (endpoint: Endpoint) => take(this.slowness.get(endpoint));
  takeChecksum = () => take(this.checksum) === true;
  takeOdd = () => take(this.odd);
  takeRefusal = () => take(this.refusal);
}

export interface FonepaySandbox {
  /** The sandbox's origin. */
  url: string;
  /** FONEPAY_API_URL: the origin and /api. */
  apiUrl: string;
  merchantCode: string;
  payments(): FonepayPayment[];
  payment(prn: string): FonepayPayment | undefined;
  /** Sockets open now (of one QR). */
  sockets(prn?: string): number;
  scan(prn: string): FonepayPayment;
  pay(prn: string): FonepayPayment;
  fail(prn: string): FonepayPayment;
  leavePending(prn: string): FonepayPayment;
  faults: Faults;
  calls: { requests: FonepayRequest[]; statusChecks(prn?: string): number };
  reset(): void;
  close(): Promise<void>;
}

export interface FonepaySandboxOptions {
  host?: string;
  port?: number;
  merchantCode?: string;
  username?: string;
  password?: string;
  secretKey?: string;
  /** "Back to Telegram" on the page (the playground's chat). */
  chatUrl?: string;
}

class UnknownQr extends Error {}
class ClosedQr extends Error {}

const AMOUNT = /^(?=.{1,10}$)\d+(\.\d+)?$/;
const REMARKS = /^[A-Za-z0-9]{1,25}$/;

/** "700.5" → 70050 paisa, exactly. */
function paisaOf(amount: string): number {
  const [whole = "0", fraction = ""] = amount.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0").slice(0, 2));
}

export async function createFonepaySandbox(
  options: FonepaySandboxOptions = {},
): Promise<FonepaySandbox> {
  const merchant = {
    merchantCode: options.merchantCode ?? TEST_MERCHANT.merchantCode,
    username: options.username ?? TEST_MERCHANT.username,
    password: options.password ?? TEST_MERCHANT.password,
    secretKey: options.secretKey ?? TEST_MERCHANT.secretKey,
  };
  if (merchant.secretKey === "") throw new RangeError("secretKey must not be empty");
  const look = fonepayLook(options.chatUrl);
  const book = new Map<string, FonepayPayment>();
  const requests: FonepayRequest[] = [];
  const sockets = new Map<string, Set<WebSocket>>();
  let nextTrace = 100_000;
  const wss = new WebSocketServer({ noServer: true });
  const faults = new Faults(
    () => {
      for (const set of sockets.values()) for (const socket of set) socket.terminate();
    },
    (prn) => {
      const payment = book.get(prn);
      if (payment) push(prn, { ...paymentStatus(payment, true), traceId: 999_999 });
    },
  );
  const record = (endpoint: FonepayRequest["endpoint"], prn: string | null, status: number) =>
    requests.push({ endpoint, prn, status, at: new Date().toISOString() });

  function push(prn: string, status: Record<string, unknown>): void {
    const text = socketMessage(merchant.merchantCode, status);
    for (const socket of sockets.get(prn) ?? []) socket.send(text);
  }

  function find(prn: string): FonepayPayment {
    const payment = book.get(prn);
    if (!payment) throw new UnknownQr(`No QR with prn ${prn}`);
    return payment;
  }

  function paymentStatus(payment: FonepayPayment, success: boolean) {
    return {
      traceId: payment.traceId ?? nextTrace,
      remarks1: payment.remarks1,
      remarks2: payment.remarks2,
      transactionDate: fonepayDate(new Date()),
      productNumber: payment.prn,
      amount: payment.amount,
      message: success ? "Request Complete" : "Payment Failed",
      success,
      commissionType: null,
      commissionAmount: null,
      totalCalculatedAmount: payment.amount,
      paymentSuccess: success,
    };
  }

  const open = (payment: FonepayPayment) => payment.status !== "success";
  const actions = {
    scan(prn: string) {
      const payment = find(prn);
      if (!open(payment)) throw new ClosedQr(`QR ${prn} is ${payment.status}`);
      if (payment.status === "CREATED") payment.status = "SCANNED";
      push(prn, { success: true, message: "VERIFIED", QRVerified: true });
      return payment;
    },
    pay(prn: string) {
      const payment = find(prn);
      if (!open(payment)) throw new ClosedQr(`QR ${prn} is ${payment.status}`);
      payment.status = "success";
      payment.traceId = nextTrace++;
      payment.paidAt = new Date().toISOString();
      push(prn, paymentStatus(payment, true));
      return payment;
    },
    fail(prn: string) {
      const payment = find(prn);
      if (!open(payment)) throw new ClosedQr(`QR ${prn} is ${payment.status}`);
      payment.status = "failed";
      push(prn, paymentStatus(payment, false));
      return payment;
    },
    leavePending(prn: string) {
      const payment = find(prn);
      if (!open(payment)) throw new ClosedQr(`QR ${prn} is ${payment.status}`);
      payment.status = "pending";
      return payment;
    },
  };

  async function apiCall(request: IncomingMessage, response: ServerResponse, endpoint: Endpoint) {
    const parsed = parseJson(await readBody(request));
    const body: JsonObject =
      parsed.valid && typeof parsed.value === "object" && parsed.value !== null
        ? (parsed.value as JsonObject)
        : {};
    const prn = typeof body.prn === "string" ? body.prn : null;
    const ms = faults.takeSlowness(endpoint);
    if (ms !== undefined) await sleep(ms, undefined, { ref: false });
    const failure = faults.takeFailure(endpoint);
    if (failure) {
      record(endpoint, prn, failure === "http-500" ? 500 : 502);
      if (failure === "http-500") return sendJson(response, 500, { message: "Internal error" });
      return sendHtml(response, 502, "<html><body><h1>502 Bad Gateway</h1></body></html>");
    }
    const refuse = (message: string) => {
      record(endpoint, prn, 406);
      sendJson(response, 406, refusal(message));
    };
    if (request.method !== "POST" || !parsed.valid) return refuse("Invalid request");
    if (body.merchantCode !== merchant.merchantCode) return refuse("Invalid Merchant Code");
    if (body.username !== merchant.username || body.password !== merchant.password) {
      return refuse("Invalid username");
    }
    const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
    if (endpoint === "status") {
      if (
        !signatureHolds(
          merchant.secretKey,
          [text("prn"), text("merchantCode")],
          body.dataValidation,
        )
      ) {
        return refuse("Data Validation Failed");
      }
      const payment = prn === null ? undefined : book.get(prn);
      record("status", prn, 200);
      let status: string = "failed";
      if (payment?.status === "success" || payment?.status === "pending") {
        status = payment.status;
        if (status === "success" && faults.takeLag()) status = "pending";
      }
      return sendJson(response, 200, {
        fonepayTraceId:
          payment?.status === "success" && status === "success" ? payment.traceId : null,
        merchantCode: merchant.merchantCode,
        prn,
        paymentStatus: status,
      });
    }
    const refused = faults.takeRefusal();
    if (refused !== undefined) return refuse(refused);
    const values = ["amount", "prn", "merchantCode", "remarks1", "remarks2"].map(text);
    if (!signatureHolds(merchant.secretKey, values, body.dataValidation)) {
      return refuse("Data Validation Failed");
    }
    const [amount = "", , , remarks1 = "", remarks2 = ""] = values;
    if (!AMOUNT.test(amount) || paisaOf(amount) <= 0) return refuse("Invalid amount");
    if (prn === null || prn.length < 1 || prn.length > 25) return refuse("Invalid prn");
    if (book.has(prn)) return refuse("Duplicate prn");
    if (!REMARKS.test(remarks1) || !REMARKS.test(remarks2)) return refuse("Invalid remarks");
    const qrMessage = qrText(
      { merchantCode: merchant.merchantCode, amount, prn },
      faults.takeOdd(),
    );
    book.set(prn, {
      prn,
      amount,
      paisa: paisaOf(amount),
      remarks1,
      remarks2,
      qrMessage,
      status: "CREATED",
      traceId: null,
      createdAt: new Date().toISOString(),
      paidAt: null,
    });
    record("qr", prn, 201);
    const wsOrigin = sandbox.url.replace(/^http/, "ws");
    return sendJson(response, 201, {
      message: "QR generated successfully",
      qrMessage: faults.takeChecksum() ? spoilt(qrMessage) : qrMessage,
      status: "CREATED",
      statusCode: 201,
      success: true,
      thirdpartyQrWebSocketUrl: `${wsOrigin}${SOCKET_PREFIX}${encodeURIComponent(prn)}`,
    });
  }

  async function page(request: IncomingMessage, response: ServerResponse, path: string) {
    const [prnPart = "", action] = path.slice(PAGE_PREFIX.length).split("/");
    const prn = decodeURIComponent(prnPart);
    request.resume();
    const payment = book.get(prn);
    if (!payment) return sendHtml(response, 404, unknownPage(look));
    if (request.method === "POST" && action) {
      const act = {
        scan: actions.scan,
        pay: actions.pay,
        fail: actions.fail,
        pending: actions.leavePending,
      }[action];
      try {
        act?.(prn);
      } catch (error) {
        if (!(error instanceof ClosedQr)) throw error;
      }
      return redirect(response, pagePath(prn));
    }
    const remarks = `${payment.remarks1} ${payment.remarks2}`;
    return sendHtml(
      response,
      200,
      await qrPage({ ...payment, merchantCode: merchant.merchantCode, remarks }, look),
    );
  }

  const server = createServer((request, response) => {
    response.on("error", () => {});
    const url = new URL(request.url ?? "/", "http://sandbox");
    const path = url.pathname;
    const handled = path.startsWith("/_sandbox/")
      ? handleControl(request, response, url, "/_sandbox/", sandbox, {
          unknown: UnknownQr,
          conflict: ClosedQr,
          setFault: (body) => setFault(body),
          own: ({ method, target }) => {
            const match = /^payments\/([^/]+)(?:\/(scan|pay|fail|pending))?$/.exec(target);
            if (!match) return undefined;
            const prn = decodeURIComponent(match[1] ?? "");
            if (method === "GET" && !match[2]) return find(prn);
            if (method !== "POST" || !match[2]) return undefined;
            const act = {
              scan: actions.scan,
              pay: actions.pay,
              fail: actions.fail,
              pending: actions.leavePending,
            }[match[2] as "scan"];
            return act(prn);
          },
        })
      : path === QR_PATH
        ? apiCall(request, response, "qr")
        : path === STATUS_PATH
          ? apiCall(request, response, "status")
          : path.startsWith(PAGE_PREFIX)
            ? page(request, response, path)
            : path === "/"
              ? Promise.resolve(sendHtml(response, 200, indexPage([...book.values()], look)))
              : Promise.resolve(sendJson(response, 404, { message: "Not found" }));
    handled.catch((error: unknown) => {
      if (request.destroyed) return;
      sendJson(response, 500, { message: `Sandbox error: ${String(error)}` });
    });
  });

  server.on("upgrade", (request, socket, head) => {
    const path = new URL(request.url ?? "/", "http://sandbox").pathname;
    const prn = path.startsWith(SOCKET_PREFIX)
      ? decodeURIComponent(path.slice(SOCKET_PREFIX.length))
      : "";
    if (!book.has(prn) || faults.socketMode === "refuse") {
      record("socket", prn || null, faults.socketMode === "refuse" ? 503 : 404);
      socket.end(
        `HTTP/1.1 ${faults.socketMode === "refuse" ? "503 Service Unavailable" : "404 Not Found"}\r\n\r\n`,
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      record("socket", prn, 101);
      if (faults.socketMode === "drop") {
        ws.terminate();
        return;
      }
      const set = sockets.get(prn) ?? new Set<WebSocket>();
      sockets.set(prn, set);
      set.add(ws);
      ws.on("close", () => set.delete(ws));
      ws.on("error", () => set.delete(ws));
      // The lie: the socket claims a payment the status call denies.
      const payment = book.get(prn);
      if (payment && faults.claims(prn)) {
        ws.send(
          socketMessage(merchant.merchantCode, {
            ...paymentStatus(payment, true),
            traceId: 999_999,
          }),
        );
      }
    });
  });

  function setFault(body: JsonObject): void {
    const times = typeof body.times === "number" ? body.times : 1;
    switch (body.fault) {
      case "socket":
        faults.socket(body.mode as "normal");
        return;
      case "drop-sockets":
        faults.dropSockets();
        return;
      case "status-lags":
        faults.statusLags(times);
        return;
      case "claim-success":
        faults.claimSuccess(String(body.prn));
        return;
      case "fail":
        faults.fail(body.endpoint as Endpoint, times, (body.how as Failure) ?? "http-500");
        return;
      case "slow":
        faults.slow(
          body.endpoint as Endpoint,
          Number(body.ms),
          typeof body.times === "number" ? body.times : undefined,
        );
        return;
      case "refuse-qr":
        faults.refuseQr(String(body.message ?? "Invalid Merchant Code"), times);
        return;
      case "bad-checksum":
        faults.badChecksum(times);
        return;
      case "odd-qr":
        faults.oddQr(body.how as OddQr, times);
        return;
      default:
        throw new RangeError(`no fault "${String(body.fault)}"`);
    }
  }

  const listening = await listen(server, options.host ?? "127.0.0.1", options.port);
  const snapshot = (payment: FonepayPayment) => structuredClone(payment);
  const sandbox: FonepaySandbox = {
    url: listening.origin,
    apiUrl: `${listening.origin}/api`,
    merchantCode: merchant.merchantCode,
    payments: () => [...book.values()].map(snapshot),
    payment: (prn) => {
      const payment = book.get(prn);
      return payment && snapshot(payment);
    },
    sockets: (prn) =>
      prn === undefined
        ? [...sockets.values()].reduce((sum, set) => sum + set.size, 0)
        : (sockets.get(prn)?.size ?? 0),
    scan: (prn) => snapshot(actions.scan(prn)),
    pay: (prn) => snapshot(actions.pay(prn)),
    fail: (prn) => snapshot(actions.fail(prn)),
    leavePending: (prn) => snapshot(actions.leavePending(prn)),
    faults,
    calls: {
      requests,
      statusChecks: (prn) =>
        requests.filter((r) => r.endpoint === "status" && (prn === undefined || r.prn === prn))
          .length,
    },
    reset: () => {
      book.clear();
      faults.clear();
      requests.length = 0;
      faults.dropSockets();
    },
    close: async () => {
      faults.clear();
      faults.dropSockets();
      wss.close();
      await listening.close();
    },
  };
  return sandbox;
}
