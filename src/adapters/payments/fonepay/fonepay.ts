// Fonepay dynamic QR as the domain's payment system. Each offer asks Fonepay for a QR with a
// prn of its own (offer-references.ts), written to the ledger before the request leaves, and
// shows it in the chat as an image; the QR text is shown only when its EMVCo checksum holds
// (fonepay-qr.ts). The offer's WebSocket (fonepay-socket.ts) is listened to, but a message on it
// is only a hint: a payment is believed from the status call alone (`success` for that prn; the
// amount is the one bound to the prn here: one prn per amount, never reused). The status call
// also runs every PAYMENT_CHECK_SECONDS while the QR can be paid, on "I have paid" and once at
// its end (the payment service's checks), so a socket that drops or never opens loses nothing.
// Fonepay publishes no expiry of a QR and no refund API: an offer is taken to stay payable
// FONEPAY_OFFER_MINUTES after it was made (at least its purchase's window) and watched a day
// more, as eSewa's forms, and a refund owed is a person's task (/refunds, /refunded).
import type { PaymentRecord } from "../../../domain/daily-reconciliation.js";
import {
  fromMinorUnits,
  NO_OFFER_YET,
  type PaymentLookup,
  type PaymentOffer,
  type PaymentSystem,
  type PendingKind,
} from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";
import type { Logger } from "../../logger.js";
import { prnFor } from "../offer-references.js";
import { FonepayClient, type FonepayClientOptions, FonepayRefusedError } from "./fonepay-client.js";
import { checkQrMessage } from "./fonepay-qr.js";
import { FonepaySockets } from "./fonepay-socket.js";
import { amountText, remarksOf } from "./fonepay-wire.js";

/** Fonepay takes rupees with paisa: two digits. */
const RUPEE_DIGITS = 2;
/**
 * How long a QR is still watched after its payable time (FONEPAY_OFFER_MINUTES): Fonepay
 * publishes no expiry of a dynamic QR, so that time is our guess, read with our clock, and the
 * QR stays in the buyer's chat (or gallery). A day more, looked up less and less often
 * (`nextLateLook`), costs a few dozen status calls per QR left unpaid; a payment made in it is
 * recorded and settled, not lost.
 */
const FONEPAY_WATCH_MARGIN_MS = 24 * 60 * 60_000;

/** The chat's side of a Fonepay offer (bot/features/payments/fonepay-qr.ts). */
export interface FonepayQrChannel {
  /** Sends the QR image with its caption and buttons; returns the message's handle (opaque). */
  show(purchase: Purchase, png: Uint8Array, payableUntil: number): Promise<string>;
  /** The QR was scanned: the buyer waits for their bank's confirmation (said once). */
  scanned(purchase: Purchase): Promise<void>;
  /** The payment is held or unfinished. */
  pending(purchase: Purchase, how: PendingKind): Promise<void>;
  /** Withdrawn or paid: the QR's buttons go, and its caption says which. */
  hide(purchase: Purchase, why: "withdrawn" | "paid"): Promise<void>;
  /** No QR can be shown: Fonepay refused (its message), or the QR text failed its checksum. */
  notShown(purchase: Purchase, why: { refused: string } | "bad-qr"): Promise<void>;
  /** The operators told that Fonepay answered a QR that fails its own checksum. */
  alertBadQr(purchase: Purchase, reason: string): Promise<void>;
  /** The operators told that Fonepay refuses QR requests (most likely our settings). */
  alertRefused(refusal: { code: string; message: string }): Promise<void>;
}

export interface FonepayOptions extends FonepayClientOptions {
  /** How long a QR is taken to stay payable once made (FONEPAY_OFFER_MINUTES). */
  offerMs: number;
}

/** A socket's word that something happened to a prn: the status call is asked now. */
export type FonepayHint = (prn: string) => Promise<void>;

export class FonepayPayments implements PaymentSystem {
  readonly method = "fonepay" as const;
  readonly watchMarginMs = FONEPAY_WATCH_MARGIN_MS;
  private readonly client: FonepayClient;
  private readonly sockets: FonepaySockets;
  private hint: FonepayHint = async () => undefined;
  /** Refusals the operators were told of since the last QR made: each said once. */
  private readonly refusalsAlerted = new Set<string>();

  private readonly offerMs: number;

  constructor(
    options: FonepayOptions,
    private readonly chat: FonepayQrChannel,
    private readonly log: Logger,
  ) {
    this.offerMs = options.offerMs;
    this.client = new FonepayClient(options);
    this.sockets = new FonepaySockets(log, {
      scanned: (purchase) => this.chat.scanned(purchase),
      hint: (prn) => this.hint(prn),
    });
  }

  /** What a socket's message leads to (wired to the payment service's check of the offer). */
  onHint(hint: FonepayHint): void {
    this.hint = hint;
  }

  async offer(
    purchase: Purchase,
    record: (handle: string, payableUntil: number) => Promise<void>,
  ): Promise<PaymentOffer> {
    const payment = purchase.payment;
    if (!payment) throw new Error("a purchase without a payment has no QR");
    const amount = amountText(fromMinorUnits(payment.minor, RUPEE_DIGITS));
    if (amount === null) throw new Error("the amount is beyond what Fonepay takes");
    // A new prn for every QR, in the ledger before the request leaves: whatever Fonepay does
    // with the request, a payment on it is found by the status checks.
    const prn = prnFor(purchase.id);
    const payableUntil = Math.max(payment.expiresAt, Date.now() + this.offerMs);
    await record(prn, payableUntil);
    let qr: Awaited<ReturnType<FonepayClient["createQr"]>>;
    try {
      qr = await this.client.createQr({
        amount,
        prn,
        remarks1: remarksOf(`Topup${purchase.bouquet.code}`, "Topup"),
        remarks2: remarksOf(purchase.bouquet.name, "Package"),
      });
    } catch (error) {
      if (error instanceof FonepayRefusedError) {
        this.log.warn(
          { purchaseId: purchase.id, code: error.code, refusal: error.fonepayMessage },
          "Fonepay refused the QR request",
        );
        await this.chat
          .notShown(purchase, { refused: error.fonepayMessage })
          .catch(() => undefined);
        await this.alertRefused(error);
      }
      throw error;
    }
    this.refusalsAlerted.clear();
    const check = checkQrMessage(qr.qrMessage, amount);
    if (!check.ok) {
      this.log.error(
        { purchaseId: purchase.id, reason: check.reason },
        "Fonepay's QR text fails its EMVCo check: not shown",
      );
      await this.chat.notShown(purchase, "bad-qr").catch(() => undefined);
      await this.chat.alertBadQr(purchase, check.reason).catch(() => undefined);
      throw new Error(`Fonepay's QR text fails its EMVCo check (${check.reason})`);
    }
    const message = await this.chat.show(purchase, await qrImage(qr.qrMessage), payment.expiresAt);
    if (qr.webSocketUrl !== null) {
      this.sockets.listen(
        prn,
        qr.webSocketUrl,
        { ...purchase, statusMessage: message },
        payableUntil,
      );
    }
    return { handle: prn, message };
  }

  /**
   * A request refused by Fonepay was checked against its rules before it left: the refusal is
   * most likely our settings (a wrong key, signature case, merchant code or username), which
   * fails every QR. The operators are told once (per process) until a QR is made again.
   */
  private async alertRefused(error: FonepayRefusedError): Promise<void> {
    const key = `${error.code}:${error.fonepayMessage}`;
    if (this.refusalsAlerted.has(key)) return;
    this.refusalsAlerted.add(key);
    await this.chat
      .alertRefused({ code: error.code, message: error.fonepayMessage })
      .catch((failure: unknown) => {
        this.refusalsAlerted.delete(key);
        this.log.warn({ err: failure }, "operators not told of Fonepay's refusal");
      });
  }

  withdraw(purchase: Purchase): Promise<void> {
    return this.chat.hide(purchase, "withdrawn");
  }

  async paid(purchase: Purchase): Promise<void> {
    const prn = purchase.payment?.offer;
    if (prn !== undefined) this.sockets.stop(prn);
    await this.chat.hide(purchase, "paid");
  }

  pending(purchase: Purchase, how: PendingKind): Promise<void> {
    return this.chat.pending(purchase, how);
  }

  /**
   * The status call about the offer's prn: `success` is paid, for the amount bound to that prn
   * (the purchase's: one prn per amount). `failed` is not final while the QR can still be paid
   * (a bank app may try again): the payment service ends the purchase after its window and
   * closes the offer at its last look. Anything else (`pending`: the bank has not settled a
   * payment yet) is held: never "nothing paid" (the buyer is told not to pay again, the
   * purchase is not ended as unpaid, and a payment still held at its last look is raised as
   * unsettled, not closed).
   */
  async lookup(purchase: Purchase): Promise<PaymentLookup> {
    const payment = purchase.payment;
    const prn = payment?.offer;
    if (!payment || prn === undefined) return NO_OFFER_YET;
    const found = await this.client.status(prn);
    switch (found.state) {
      case "paid":
        this.sockets.stop(prn);
        return {
          state: "paid",
          minor: payment.minor,
          charge: { id: prn, providerId: found.traceId, at: Date.now() },
        };
      case "failed":
        return { state: "waiting", pending: false };
      case "pending":
        return { state: "waiting", pending: "held" };
      case "unknown":
        throw new Error(`Fonepay's status call said nothing conclusive (${found.reason})`);
    }
  }

  /** Fonepay's record of the prn for the daily reconciliation: paid for the amount bound to it. */
  async audit(prn: string, minor: number): Promise<PaymentRecord> {
    const found = await this.client.status(prn);
    if (found.state === "unknown") {
      throw new Error(`Fonepay's status call said nothing conclusive (${found.reason})`);
    }
    return found.state === "paid"
      ? { paid: true, refunded: false, amountMinor: BigInt(minor) }
      : { paid: false, refunded: false, amountMinor: 0n };
  }

  /** Every socket closed (the process stops). */
  close(): void {
    this.sockets.stopAll();
  }
}

/**
 * The QR as a PNG: error correction Q (a quarter of it may be lost: a phone screen's glare, a
 * screenshot's scaling), a quiet zone of four modules, large enough to scan from a screen.
 * The library is loaded by the first QR.
 */
async function qrImage(text: string): Promise<Uint8Array> {
  const QRCode = (await import("qrcode")).default;
  return QRCode.toBuffer(text, { errorCorrectionLevel: "Q", margin: 4, scale: 8, type: "png" });
}
