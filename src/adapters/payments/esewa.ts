// eSewa ePay v2 as the domain's payment system. The chat gets a link to the bot's own pay page
// (esewa-pages.ts), which posts the signed form to eSewa; eSewa's redirects back are only hints.
// A payment is believed from the status check alone (esewa-status.ts): COMPLETE for this
// transaction_uuid and the same total_amount. eSewa cannot cancel a form already posted: a
// withdrawn offer loses its buttons, and a payment made on it anyway is owed back. eSewa
// publishes no refund API either: a refund owed is a person's task (/refunds, /refunded).
import { createHash, randomBytes } from "node:crypto";
import type { PaymentRecord } from "../../domain/daily-reconciliation.js";
import {
  fromMinorUnits,
  type PaymentLinkChannel,
  type PaymentLookup,
  type PaymentOffer,
  type PaymentSystem,
} from "../../domain/payment.js";
import type { Purchase } from "../../domain/purchase.js";
import { type EsewaMerchant, esewaForm, verifyEsewaRedirect } from "./esewa-signature.js";
import { EsewaStatusClient, type EsewaUnknownReason } from "./esewa-status.js";

/** eSewa takes rupees with paisa: two digits. */
const RUPEE_DIGITS = 2;
/** A purchase id used as it is in a transaction_uuid: letters, digits and hyphens, not too long. */
const USABLE_ID = /^[A-Za-z0-9-]{1,64}$/;

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
 * A new transaction_uuid for a purchase: its id (purchase ids are unique in the ledger), or a
 * digest of it when it has other characters, and a random part, so that it is never one another
 * merchant's (eSewa's test merchant is shared) or an earlier offer's.
 */
function transactionUuidFor(purchaseId: string): string {
  const base = USABLE_ID.test(purchaseId)
    ? purchaseId
    : createHash("sha256").update(purchaseId).digest("hex").slice(0, 24);
  return `${base}-${randomBytes(4).toString("hex")}`;
}

/** eSewa could not say what became of a payment: asked again at the next check. */
class EsewaUnavailableError extends Error {
  override name = "EsewaUnavailableError";
  constructor(reason: EsewaUnknownReason) {
    super(`eSewa's status check said nothing conclusive (${reason})`);
  }
}

export class EsewaPayments implements PaymentSystem {
  readonly method = "esewa" as const;
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
    record: (handle: string) => Promise<void>,
  ): Promise<PaymentOffer> {
    if (!purchase.payment) throw new Error("a purchase without a payment has no payment link");
    const uuid = transactionUuidFor(purchase.id);
    // In the ledger before the buyer sees the link: the pay page and the checks find it by it.
    await record(uuid);
    return { handle: uuid, message: await this.links.show(purchase, `${this.payPage}${uuid}`) };
  }

  withdraw(purchase: Purchase): Promise<void> {
    return this.links.hide(purchase);
  }

  pending(purchase: Purchase): Promise<void> {
    return this.links.pending(purchase);
  }

  async lookup(purchase: Purchase): Promise<PaymentLookup> {
    const payment = purchase.payment;
    const uuid = payment?.offer;
    if (!payment || uuid === undefined) return { state: "ended", cancelled: false };
    const found = await this.status.check({
      transactionUuid: uuid,
      totalAmount: fromMinorUnits(payment.minor, RUPEE_DIGITS),
    });
    switch (found.state) {
      case "paid":
        // The status check compared the amount: it is the one asked. The uuid is the charge
        // (one payment per offer), eSewa's ref_id the reference a person refunds by.
        return {
          state: "paid",
          minor: payment.minor,
          charge: { id: uuid, providerId: found.refId, at: Date.now() },
        };
      case "pending":
        return { state: "waiting", pending: true };
      case "not-found":
        return { state: "not-found" };
      case "canceled":
        return { state: "ended", cancelled: true };
      case "refunded":
        return { state: "refunded" };
      case "partially-refunded":
        return { state: "refunded", partial: true };
      case "unknown":
        throw new EsewaUnavailableError(found.reason);
    }
  }

  /**
   * eSewa's record of the transaction_uuid, asked with the amount its form posted: COMPLETE is
   * for exactly that amount (another is not found), a refund's amount is not said.
   */
  async audit(uuid: string, minor: number): Promise<PaymentRecord> {
    const found = await this.status.check({
      transactionUuid: uuid,
      totalAmount: fromMinorUnits(minor, RUPEE_DIGITS),
    });
    switch (found.state) {
      case "paid":
        return { paid: true, refunded: false, amountMinor: BigInt(minor) };
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
