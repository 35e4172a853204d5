// Khalti's web checkout (ePayment, KPG-2) as the domain's payment system: initiate, lookup,
// refund over HTTP. Every call carries `Authorization: Key <secret>` (never logged) and goes
// through the product's HTTP client. Only what Khalti's own lookup says counts as paid; its
// status is read from the body even on a 4xx (Khalti reports some final states that way), and
// only its own JSON says it does not know a payment.
// Khalti cannot cancel a link: a withdrawn one loses its buttons and is watched until Khalti's
// own expires_at; a payment made on it anyway pays for its purchase if nothing else did (late,
// if it had ended), and is owed back otherwise. Failed is final (nothing was taken); Partially
// Refunded is a payment of which part went back outside the bot (the lookup says only that some
// went back: its `refunded` flag, not how much), owed back for the rest. A bank payment is
// refunded only with the payer's mobile number, sent only when Khalti asks for it.
import type { PaymentRecord } from "../../../domain/daily-reconciliation.js";
import {
  NO_OFFER_YET,
  type PaymentLinkChannel,
  type PaymentLookup,
  type PaymentOffer,
  type PaymentSystem,
  type PendingKind,
  type Refund,
} from "../../../domain/payment.js";
import type { Purchase } from "../../../domain/purchase.js";
import { type HttpPool, httpPool } from "../../http-client.js";
import { offerReferenceFor } from "../offer-references.js";

/** Khalti takes no less than NPR 10. */
const KHALTI_MINIMUM_PAISA = 1_000;
/**
 * How long a link is taken to stay payable when initiate states no expires_at: Khalti documents
 * about 30 minutes; twice that, so that a link is never taken for unpayable too early.
 */
const KHALTI_FALLBACK_LIFETIME_MS = 60 * 60_000;
/** The lookup's statuses of a payment made; any other (Pending, Expired, …) is none made. */
const KHALTI_PAID: ReadonlyMap<string, "paid" | "refunded"> = new Map([
  ["Completed", "paid"],
  ["Refunded", "refunded"],
  ["Partially Refunded", "refunded"],
]);

export interface KhaltiOptions {
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
  /**
   * How long a link is still watched after its expires_at, read with our clock, before its last
   * look (KHALTI_EXPIRY_MARGIN_SECONDS): a clock ahead of Khalti's would otherwise stop looking
   * while Khalti still takes a payment on it.
   */
  expiryMarginMs?: number;
}

export class KhaltiPayments implements PaymentSystem {
  readonly method = "khalti" as const;
  readonly minimumMinor = KHALTI_MINIMUM_PAISA;
  readonly watchMarginMs: number;
  private readonly khalti: KhaltiClient;

  constructor(
    options: KhaltiOptions,
    private readonly links: PaymentLinkChannel,
    /** Where Khalti sends the buyer back (PUBLIC_URL and the return path), and the website. */
    private readonly urls: { returnUrl: string; websiteUrl: string },
  ) {
    this.khalti = new KhaltiClient(options);
    this.watchMarginMs = options.expiryMarginMs ?? 0;
  }

  async offer(
    purchase: Purchase,
    record: (handle: string, payableUntil: number) => Promise<void>,
  ): Promise<PaymentOffer> {
    const payment = purchase.payment;
    if (!payment) throw new Error("a purchase without a payment has no payment link");
    // No phone number or name goes to Khalti: the order id and the package only. The order id
    // is new for every link (a purchase switched back to Khalti asks for a second one), and
    // leads with the purchase's id.
    const link = await this.khalti.initiate({
      amount: payment.minor,
      purchaseOrderId: offerReferenceFor(purchase.id),
      purchaseOrderName: purchase.bouquet.name.slice(0, 100),
      ...this.urls,
    });
    // In the ledger before the buyer sees the link: every payment on it is found and looked up,
    // until Khalti stops taking one.
    await record(link.pidx, link.expiresAt ?? Date.now() + KHALTI_FALLBACK_LIFETIME_MS);
    return { handle: link.pidx, message: await this.links.show(purchase, link.paymentUrl) };
  }

  withdraw(purchase: Purchase): Promise<void> {
    return this.links.hide(purchase);
  }

  pending(purchase: Purchase, how: PendingKind): Promise<void> {
    return this.links.pending(purchase, how);
  }

  async lookup(purchase: Purchase): Promise<PaymentLookup> {
    const pidx = purchase.payment?.offer;
    if (pidx === undefined) return NO_OFFER_YET;
    const found = await this.khalti.lookup(pidx);
    if (!found.found) return { state: "not-found" };
    const charge = { id: pidx, providerId: found.transactionId, at: Date.now() };
    switch (found.status) {
      case "Completed":
        // Paid only with an amount to compare: an unreadable one is asked again. One that no
        // payment can have (0, negative, a fraction of a paisa) is the domain's to set aside.
        if (found.totalAmount === null) return { state: "waiting", pending: "held" };
        return { state: "paid", minor: found.totalAmount, charge };
      case "Pending":
        return { state: "waiting", pending: "held" };
      case "User canceled":
        return { state: "ended", cancelled: true };
      case "Expired":
        return { state: "ended", cancelled: false };
      case "Failed":
        // Final by Khalti's documentation: the payment did not go through, nothing was taken.
        return { state: "ended", cancelled: false, failed: true };
      case "Refunded":
        return { state: "refunded" };
      case "Partially Refunded":
        // Money was taken and part of it given back outside the bot: total_amount is what was
        // paid; how much went back Khalti does not say. Unreadable: asked again.
        if (found.totalAmount === null) return { state: "waiting", pending: "held" };
        return { state: "refunded-in-part", minor: found.totalAmount, charge, refundedMinor: null };
      default:
        return { state: "waiting", pending: false };
    }
  }

  /** Khalti's record of the pidx: paid (and refunded) only with an amount Khalti states. */
  async audit(pidx: string): Promise<PaymentRecord> {
    const found = await this.khalti.lookup(pidx);
    if (!found.found) return { paid: false, refunded: false, amountMinor: 0n };
    const amountMinor = Number.isSafeInteger(found.totalAmount)
      ? BigInt(found.totalAmount ?? 0)
      : null;
    const paid = KHALTI_PAID.get(found.status);
    if (paid === undefined) return { paid: false, refunded: false, amountMinor: amountMinor ?? 0n };
    if (amountMinor === null) throw new KhaltiUnavailableError("lookup stated no amount paid");
    return { paid: true, refunded: paid === "refunded", amountMinor };
  }

  /**
   * Whether the payment (its pidx: the charge id) is refunded in full, by Khalti's own lookup:
   * what a refund call whose answer was lost did. `Refunded`: yes; still `Completed` or
   * `Partially Refunded` (our refund gives back all that is left): no; anything else cannot tell.
   */
  async refunded(refund: Refund): Promise<boolean> {
    const found = await this.khalti.lookup(refund.chargeId);
    if (found.found && found.status === "Refunded") return true;
    if (found.found && (found.status === "Completed" || found.status === "Partially Refunded")) {
      return false;
    }
    throw new KhaltiUnavailableError("the lookup does not say whether the refund was made");
  }

  /**
   * The whole payment (an empty body), or, when part of it went back outside the bot by a stated
   * amount, the rest as `{amount}` in paisa: what an empty body refunds of a payment Partially
   * Refunded is not documented, so it is never sent for one (refunds.ts leaves a rest nobody
   * states to a person). `payerMobile` goes only on a call after Khalti asked for it (a bank
   * payment), never on the first: "needs-mobile" when Khalti refuses for its lack.
   */
  refund(refund: Refund, payerMobile?: string): Promise<"refunded" | "refused" | "needs-mobile"> {
    if (refund.providerChargeId === null) return Promise.resolve("refused");
    const part = refund.refundedOutside;
    if (part?.minor === null) return Promise.resolve("refused");
    const amount = part ? refund.minor - part.minor : undefined;
    return this.khalti.refund(refund.providerChargeId, payerMobile, amount);
  }
}

interface KhaltiInitiation {
  pidx: string;
  paymentUrl: string;
  /** When Khalti stops taking the payment, if it said. */
  expiresAt: number | null;
}

type KhaltiLookup =
  | {
      found: true;
      status: string;
      /** As stated (whatever it is), when it is a number at all; null when none can be read. */
      totalAmount: number | null;
      transactionId: string | null;
      refunded: boolean;
    }
  /** Khalti itself says it does not know this pidx. */
  | { found: false };

/** Khalti could not be asked, or answered with something unreadable: try again later. */
class KhaltiUnavailableError extends Error {
  override name = "KhaltiUnavailableError";
}

class KhaltiClient {
  private readonly pool: HttpPool;

  constructor(private readonly options: KhaltiOptions) {
    this.pool = httpPool(new URL(options.baseUrl).origin, {
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async initiate(order: {
    amount: number;
    purchaseOrderId: string;
    purchaseOrderName: string;
    returnUrl: string;
    websiteUrl: string;
  }): Promise<KhaltiInitiation> {
    const { status, body } = await this.post("/api/v2/epayment/initiate/", {
      return_url: order.returnUrl,
      website_url: order.websiteUrl,
      amount: order.amount,
      purchase_order_id: order.purchaseOrderId,
      purchase_order_name: order.purchaseOrderName,
    });
    const pidx = field(body, "pidx");
    const paymentUrl = field(body, "payment_url");
    if (status !== 200 || typeof pidx !== "string" || typeof paymentUrl !== "string") {
      throw new KhaltiUnavailableError(`initiate answered ${status}`);
    }
    const expires = field(body, "expires_at");
    const expiresAt = typeof expires === "string" ? Date.parse(expires) : Number.NaN;
    return { pidx, paymentUrl, expiresAt: Number.isNaN(expiresAt) ? null : expiresAt };
  }

  /**
   * Only Khalti's own JSON is an answer: a status (read even on a 4xx), or a 404 with its error
   * body (`{"detail": …}`) for a pidx it does not know. A proxy's or a CDN's page, a 5xx or a
   * body that is not JSON says nothing about the payment: asked again later.
   */
  async lookup(pidx: string): Promise<KhaltiLookup> {
    const { status, body } = await this.post("/api/v2/epayment/lookup/", { pidx });
    const state = field(body, "status");
    if (status === 404 && state === undefined && typeof field(body, "detail") === "string") {
      return { found: false };
    }
    if (typeof state !== "string" || status >= 500) {
      throw new KhaltiUnavailableError(`lookup answered ${status}`);
    }
    const transaction = field(body, "transaction_id");
    return {
      found: true,
      status: state,
      totalAmount: amountOf(field(body, "total_amount")),
      transactionId: typeof transaction === "string" && transaction ? transaction : null,
      refunded: field(body, "refunded") === true,
    };
  }

  /**
   * A full refund (no `amount`) or a partial one: "refused" when Khalti will not (its 4xx:
   * refunded before, or never paid); "needs-mobile" when its field error names `mobile` (a bank
   * payment, refunded only with the mobile number of the payer's Khalti account).
   */
  async refund(
    transactionId: string,
    mobile?: string,
    amount?: number,
  ): Promise<"refunded" | "refused" | "needs-mobile"> {
    const path = `/api/merchant-transaction/${encodeURIComponent(transactionId)}/refund/`;
    const { status, body } = await this.post(path, {
      ...(amount !== undefined && { amount }),
      ...(mobile !== undefined && { mobile }),
    });
    // Only Khalti's own JSON says what became of a refund: a proxy's page (even a 404 or a 200)
    // says nothing, and the refund is asked again rather than handed to a person twice.
    const khaltis = typeof body === "object" && body !== null && !Array.isArray(body);
    // Done only as Khalti says it (its `detail`, no `error_key`): any other 2xx is no answer, and
    // the refund desk then asks Khalti's own lookup whether it was made.
    const done =
      typeof field(body, "detail") === "string" && field(body, "error_key") === undefined;
    if (khaltis && status >= 200 && status < 300 && done) return "refunded";
    if (khaltis && status >= 400 && status < 500 && status !== 401 && status !== 429) {
      return field(body, "mobile") === undefined ? "refused" : "needs-mobile";
    }
    throw new KhaltiUnavailableError(`refund answered ${status}`);
  }

  private async post(path: string, payload: object): Promise<{ status: number; body: unknown }> {
    try {
      const response = await this.pool.request({
        method: "POST",
        path,
        headers: {
          authorization: `Key ${this.options.secretKey}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(payload),
      });
      const text = await response.body.text();
      return { status: response.statusCode, body: parsed(text) };
    } catch (error) {
      throw new KhaltiUnavailableError(error instanceof Error ? error.message : String(error));
    }
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const field = (body: unknown, name: string): unknown =>
  typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;

/** A number as Khalti wrote it (a JSON number, or a numeric string); null for anything else. */
function amountOf(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || !/^-?\d+(\.\d+)?$/.test(value.trim())) return null;
  return Number(value);
}
