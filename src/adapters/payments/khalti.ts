// Khalti's web checkout (ePayment, KPG-2) as the domain's payment system: initiate, lookup,
// refund over HTTP. Every call carries `Authorization: Key <secret>` (never logged) and goes
// through the product's HTTP client. Only what Khalti's own lookup says counts as paid; its
// status is read from the body even on a 4xx (Khalti reports some final states that way), and
// only its own JSON says it does not know a payment.
// Khalti cannot cancel a link: a withdrawn one loses its buttons, and a payment made on it
// anyway is owed back.
import type { PaymentRecord } from "../../domain/daily-reconciliation.js";
import type {
  PaymentLinkChannel,
  PaymentLookup,
  PaymentOffer,
  PaymentSystem,
  Refund,
} from "../../domain/payment.js";
import type { Purchase } from "../../domain/purchase.js";
import { type HttpPool, httpPool } from "../http-client.js";

/** Khalti takes no less than NPR 10. */
const KHALTI_MINIMUM_PAISA = 1_000;
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
}

export class KhaltiPayments implements PaymentSystem {
  readonly method = "khalti" as const;
  readonly minimumMinor = KHALTI_MINIMUM_PAISA;
  private readonly khalti: KhaltiClient;

  constructor(
    options: KhaltiOptions,
    private readonly links: PaymentLinkChannel,
    /** Where Khalti sends the buyer back (PUBLIC_URL and the return path), and the website. */
    private readonly urls: { returnUrl: string; websiteUrl: string },
  ) {
    this.khalti = new KhaltiClient(options);
  }

  async offer(
    purchase: Purchase,
    record: (handle: string) => Promise<void>,
  ): Promise<PaymentOffer> {
    const payment = purchase.payment;
    if (!payment) throw new Error("a purchase without a payment has no payment link");
    // No phone number or name goes to Khalti: the order id and the package only.
    const link = await this.khalti.initiate({
      amount: payment.minor,
      purchaseOrderId: purchase.id,
      purchaseOrderName: purchase.bouquet.name.slice(0, 100),
      ...this.urls,
    });
    // In the ledger before the buyer sees the link: every payment on it is found and looked up.
    await record(link.pidx);
    return { handle: link.pidx, message: await this.links.show(purchase, link.paymentUrl) };
  }

  withdraw(purchase: Purchase): Promise<void> {
    return this.links.hide(purchase);
  }

  pending(purchase: Purchase): Promise<void> {
    return this.links.pending(purchase);
  }

  async lookup(purchase: Purchase): Promise<PaymentLookup> {
    const pidx = purchase.payment?.offer;
    if (pidx === undefined) return { state: "ended", cancelled: false };
    const found = await this.khalti.lookup(pidx);
    if (!found.found) return { state: "not-found" };
    switch (found.status) {
      case "Completed":
        // Paid only with an amount to compare: an unreadable one is asked again.
        if (found.totalAmount === null) return { state: "waiting", pending: true };
        return {
          state: "paid",
          minor: found.totalAmount,
          charge: { id: pidx, providerId: found.transactionId, at: Date.now() },
        };
      case "Pending":
        return { state: "waiting", pending: true };
      case "User canceled":
        return { state: "ended", cancelled: true };
      case "Expired":
        return { state: "ended", cancelled: false };
      case "Refunded":
      case "Partially Refunded":
        return { state: "refunded" };
      default:
        return { state: "waiting", pending: false };
    }
  }

  /** Khalti's record of the pidx: paid (and refunded) only with an amount Khalti states. */
  async audit(pidx: string): Promise<PaymentRecord> {
    const found = await this.khalti.lookup(pidx);
    if (!found.found) return { paid: false, refunded: false, amountMinor: 0n };
    const amountMinor = found.totalAmount === null ? null : BigInt(found.totalAmount);
    const paid = KHALTI_PAID.get(found.status);
    if (paid === undefined) return { paid: false, refunded: false, amountMinor: amountMinor ?? 0n };
    if (amountMinor === null) throw new KhaltiUnavailableError("lookup stated no amount paid");
    return { paid: true, refunded: paid === "refunded", amountMinor };
  }

  refund(refund: Refund): Promise<"refunded" | "refused"> {
    if (refund.providerChargeId === null) return Promise.resolve("refused");
    return this.khalti.refund(refund.providerChargeId);
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
    const total = Number(field(body, "total_amount"));
    const transaction = field(body, "transaction_id");
    return {
      found: true,
      status: state,
      totalAmount: Number.isSafeInteger(total) ? total : null,
      transactionId: typeof transaction === "string" && transaction ? transaction : null,
      refunded: field(body, "refunded") === true,
    };
  }

  /** A full refund: "refused" when Khalti will not (its 4xx: refunded before, or never paid). */
  async refund(transactionId: string): Promise<"refunded" | "refused"> {
    const path = `/api/merchant-transaction/${encodeURIComponent(transactionId)}/refund/`;
    const { status, body } = await this.post(path, {});
    // Only Khalti's own JSON says what became of a refund: a proxy's page (even a 404 or a 200)
    // says nothing, and the refund is asked again rather than handed to a person twice.
    const khaltis = typeof body === "object" && body !== null && !Array.isArray(body);
    if (khaltis && status >= 200 && status < 300) return "refunded";
    if (khaltis && status >= 400 && status < 500 && status !== 401 && status !== 429) {
      return "refused";
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
