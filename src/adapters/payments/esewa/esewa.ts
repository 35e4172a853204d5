// eSewa ePay v2 as the domain's payment system. The chat gets a link to the bot's own pay page
// (esewa-pages.ts), which posts the signed form to eSewa; eSewa's redirects back are only hints.
// A payment is believed from the status check alone (esewa-status.ts): COMPLETE for this
// transaction_uuid and the same total_amount. eSewa cannot cancel a form already posted, and
// publishes no expiry for one: a withdrawn offer loses its buttons and is watched for
// ESEWA_OFFER_MINUTES after its form was last served, and a day more (ESEWA_WATCH_MARGIN_MS);
// a payment made on it then pays for its
// purchase if nothing else did (late, if it had ended), and is owed back otherwise. eSewa
// publishes no refund API either: a refund owed is a person's task (/refunds, /refunded).
import type { PaymentRecord } from "../../../domain/daily-reconciliation.js";
import {
  fromMinorUnits,
  NO_OFFER_YET,
  type PaymentLinkChannel,
  type PaymentLookup,
  type PaymentOffer,
  type PaymentSystem,
  type PendingKind,
  toMinorUnits,
} from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";
import { offerReferenceFor } from "../offer-references.js";
import { type EsewaMerchant, esewaForm, verifyEsewaRedirect } from "./esewa-signature.js";
import { EsewaStatusClient, type EsewaUnknownReason } from "./esewa-status.js";

/** eSewa takes rupees with paisa: two digits. */
const RUPEE_DIGITS = 2;

export interface EsewaOptions {
  productCode: string;
  /** Signs the forms and verifies the redirects (never logged). */
  secretKey: string;
  formUrl: string;
  statusUrl: string;
  timeoutMs: number;
  /** The bot's pages, under PUBLIC_URL: the pay page and the failure URL take the uuid after. */
  pages: { pay: string; success: string; failure: string };
}

/**
 * How long a form is still watched after ESEWA_OFFER_MINUTES: eSewa publishes no expiry for a
 * form posted to it (its status check says NOT_FOUND for "not paid" and for "the session
 * expired" alike), so ESEWA_OFFER_MINUTES is our guess, not eSewa's word, and it is read with our
 * clock. A payer may also finish at eSewa long after the post (a bank's or a wallet's own
 * delay; eSewa advises its status check only when no answer came within five minutes). A day
 * more costs a few dozen status checks per form left unpaid (`nextLateLook`), and a payment
 * eSewa took in that time is recorded and settled, not lost.
 */
export const ESEWA_WATCH_MARGIN_MS = 24 * 60 * 60_000;

/** eSewa could not say what became of a payment: asked again at the next check. */
class EsewaUnavailableError extends Error {
  override name = "EsewaUnavailableError";
  constructor(reason: EsewaUnknownReason) {
    super(`eSewa's status check said nothing conclusive (${reason})`);
  }
}

export class EsewaPayments implements PaymentSystem {
  readonly method = "esewa" as const;
  readonly watchMarginMs = ESEWA_WATCH_MARGIN_MS;
  private readonly status: EsewaStatusClient;
  private readonly payPage: string;

  constructor(
    options: EsewaOptions,
    private readonly links: PaymentLinkChannel,
  ) {
    this.status = new EsewaStatusClient(options);
    this.payPage = options.pages.pay;
  }

  async offer(
    purchase: Purchase,
    record: (handle: string, payableUntil: number) => Promise<void>,
  ): Promise<PaymentOffer> {
    if (!purchase.payment) throw new Error("a purchase without a payment has no payment link");
    // A new transaction_uuid for every offer (offer-references.ts).
    const uuid = offerReferenceFor(purchase.id);
    // In the ledger before the buyer sees the link: the pay page and the checks find it by it.
    // Nothing can be paid at eSewa before the pay page serves the signed form, which first
    // makes it payable ESEWA_OFFER_MINUTES from then (keepOfferUntil): until then, until now.
    await record(uuid, Date.now());
    return { handle: uuid, message: await this.links.show(purchase, `${this.payPage}${uuid}`) };
  }

  withdraw(purchase: Purchase): Promise<void> {
    return this.links.hide(purchase);
  }

  pending(purchase: Purchase, how: PendingKind): Promise<void> {
    return this.links.pending(purchase, how);
  }

  async lookup(purchase: Purchase): Promise<PaymentLookup> {
    const payment = purchase.payment;
    const uuid = payment?.offer;
    if (!payment || uuid === undefined) return NO_OFFER_YET;
    const asked = fromMinorUnits(payment.minor, RUPEE_DIGITS);
    const found = await this.status.check({ transactionUuid: uuid, totalAmount: asked });
    // The uuid is the charge (one payment per offer), eSewa's ref_id the reference a person
    // refunds by.
    const charge = { id: uuid, providerId: "refId" in found ? found.refId : null, at: Date.now() };
    switch (found.state) {
      case "paid":
        // The status check compared the amount: it is the one asked.
        return { state: "paid", minor: payment.minor, charge };
      case "paid-other-amount": {
        // Asked for one amount, COMPLETE for another: not believed as it came, a person's.
        const minor = toMinorUnits(found.totalAmount, RUPEE_DIGITS);
        if (minor === null) throw new EsewaUnavailableError("other-amount");
        const reason = `eSewa's status check answered COMPLETE for ${found.totalAmount} when asked about ${asked}`;
        return { state: "doubtful", minor, charge, reason };
      }
      case "pending":
        // PENDING: started at eSewa and not finished; AMBIGUOUS: held in eSewa's "halt state".
        return { state: "waiting", pending: found.status === "PENDING" ? "unfinished" : "held" };
      case "not-found":
        return { state: "not-found" };
      case "canceled":
        return { state: "ended", cancelled: true };
      case "refunded":
        return { state: "refunded" };
      case "partially-refunded":
        // Paid as asked (the check compared the amount), and part of it given back outside the
        // bot; how much, eSewa does not say.
        return { state: "refunded-in-part", minor: payment.minor, charge, refundedMinor: null };
      case "unknown":
        throw new EsewaUnavailableError(found.reason);
    }
  }

  /**
   * eSewa's record of the transaction_uuid, asked with the amount its form posted: COMPLETE is
   * for that amount, or for the other one eSewa states; a refund's amount is not said.
   */
  async audit(uuid: string, minor: number): Promise<PaymentRecord> {
    const found = await this.status.check({
      transactionUuid: uuid,
      totalAmount: fromMinorUnits(minor, RUPEE_DIGITS),
    });
    switch (found.state) {
      case "paid":
        return { paid: true, refunded: false, amountMinor: BigInt(minor) };
      case "paid-other-amount": {
        const stated = toMinorUnits(found.totalAmount, RUPEE_DIGITS);
        if (stated === null) throw new EsewaUnavailableError("other-amount");
        return { paid: true, refunded: false, amountMinor: BigInt(stated) };
      }
      case "refunded":
      case "partially-refunded":
        return { paid: true, refunded: true, amountMinor: BigInt(minor) };
      case "not-found":
      case "canceled":
      case "pending":
        return { paid: false, refunded: false, amountMinor: 0n };
      case "unknown":
        throw new EsewaUnavailableError(found.reason);
    }
  }
}

/** The pay page's form and the redirects' verification, with the merchant's key. */
export class EsewaCheckout {
  private readonly merchant: EsewaMerchant;
  /** Where the form is posted. */
  readonly formUrl: string;

  constructor(options: Pick<EsewaOptions, "productCode" | "secretKey" | "formUrl" | "pages">) {
    this.merchant = {
      productCode: options.productCode,
      secretKey: options.secretKey,
      successUrl: options.pages.success,
      failureUrl: options.pages.failure,
    };
    this.formUrl = options.formUrl;
  }

  /** The signed form paying `minor` paisa under `transactionUuid`, its fields in eSewa's order. */
  form(transactionUuid: string, minor: number): Readonly<Record<string, string>> {
    // The failure URL names the offer: eSewa brings nothing back to it.
    const merchant = {
      ...this.merchant,
      failureUrl: `${this.merchant.failureUrl}${transactionUuid}`,
    };
    return { ...esewaForm(merchant, fromMinorUnits(minor, RUPEE_DIGITS), transactionUuid) };
  }

  /**
   * The transaction_uuid of a redirect's `data` that verifies over its own signed fields and
   * is this merchant's; null for anything forged, altered or malformed.
   */
  redirectUuid(data: string | null): string | null {
    const check = verifyEsewaRedirect(this.merchant.secretKey, data);
    if (!check.ok || check.redirect.productCode !== this.merchant.productCode) return null;
    return check.redirect.transactionUuid;
  }
}
