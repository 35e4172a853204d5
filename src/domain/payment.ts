// What a payment is to the domain, whatever system took it: the amount asked in the currency's
// minor units, the references the payment system gave, and the port each system implements.
import type { PaymentRecord } from "./daily-reconciliation.js";
import type { Amount } from "./money.js";
import type { Claim, PaymentCharge, PaymentMethod, Purchase, PurchasePayment } from "./purchase.js";

/** A confirmation from the payment system itself, as received. */
export interface ReceivedPayment {
  method: PaymentMethod;
  /** Our payload: the purchase id. */
  purchaseId: string;
  currency: string;
  minor: number;
  charge: PaymentCharge;
}

/** The ledger's payments (adapters/ledger/payment-ledger.ts): each method is one transaction. */
export interface PaymentLedger {
  /**
   * Records a payment confirmation, once per charge id: the purchase it pays for becomes paid
   * and is leased to the caller for its top-up; any other is owed back.
   */
  receivePayment(payment: ReceivedPayment, leaseMs: number): Promise<PaymentReceipt>;
  /** The buyer's purchases still waiting for a payment. */
  awaitingPayment(buyer: number): Promise<Purchase[]>;
  /** Payments owed back, oldest first. */
  refundsDue(count: number): Promise<Refund[]>;
  /** The refund a purchase's own payment is owed, if it is. */
  refundDueFor(purchaseId: string): Promise<Refund | null>;
  /**
   * Marks the refund due by a purchase id or a charge id done, once, with who and why; its
   * purchase becomes refunded in the same transaction. Null when no refund is due by that id.
   */
  markRefunded(key: string, by: string, note: string | null): Promise<Refund | null>;
  /**
   * The purchase an offer's handle names (Khalti's pidx on the return page), whether the offer
   * is the purchase's current one or one withdrawn when the buyer chose another method.
   */
  byOffer(method: PaymentMethod, handle: string): Promise<Purchase | null>;
  /**
   * Withdrawn offers of these methods still to be looked up (a payment made on one anyway must
   * be found), due by now, at most `count`; each is taken for `nextLookMs` so that instances
   * look up different ones.
   */
  offersToLook(methods: PaymentMethod[], count: number, nextLookMs: number): Promise<OfferRef[]>;
  /** A withdrawn offer needs no more looking up (paid and recorded, ended, or expired). */
  closeOffer(offer: OfferRef): Promise<void>;
  /** Counts one more refund call of a payment still owed; null when it is owed no more. */
  countRefundAttempt(paymentId: string): Promise<number | null>;
}

/**
 * Confirmations the ledger could not take yet, kept where the next process finds them: each is
 * replayed into the ledger until it is there (its charge id makes a replay harmless).
 */
export interface PaymentJournal {
  /** Resolves once the confirmation is durable (flushed to disk); throws when it cannot be. */
  append(payment: ReceivedPayment): Promise<void>;
  /** Every confirmation kept, oldest first; an entry torn by a crash is not one. */
  read(): Promise<ReceivedPayment[]>;
  /** These charge ids are in the ledger: their entries go, and the journal once it is empty. */
  settle(chargeIds: ReadonlySet<string>): Promise<void>;
}

/** One offer made for a purchase: its method and the system's handle (invoice message, pidx). */
export interface OfferRef {
  purchaseId: string;
  method: PaymentMethod;
  handle: string;
}

/** The payment systems offered, by method, in the order of the buyer's buttons. */
export type PaymentSystems = ReadonlyMap<PaymentMethod, PaymentSystem>;

/** A payment system: offers a purchase for payment and takes the offer back. */
export interface PaymentSystem {
  readonly method: PaymentMethod;
  /** The least it takes, in minor units, when above one (Khalti: 1000 paisa). */
  readonly minimumMinor?: number;
  /**
   * Sends the invoice (or link) to the buyer. `record` writes the offer's handle to the ledger:
   * a system whose payments are found by it calls it before the buyer can pay.
   */
  offer(purchase: Purchase, record: (handle: string) => Promise<void>): Promise<PaymentOffer>;
  /** Makes the offer unpayable, or at least takes its buttons away; best effort. */
  withdraw(purchase: Purchase): Promise<void>;
  /**
   * Systems whose confirmation must be asked for (Khalti): what became of the offer that
   * `purchase.payment` names (its method and handle: the current offer, or a withdrawn one).
   * Throws when the system cannot be asked now.
   */
  lookup?(purchase: Purchase): Promise<PaymentLookup>;
  /**
   * Systems that refund through their API (Khalti): gives the payment back in full.
   * "refused": the system will not (already refunded, or never paid); throws when the outcome
   * is not known.
   */
  refund?(refund: Refund): Promise<"refunded" | "refused">;
  /** The system holds a payment (Khalti's Pending): tells the buyer to wait, not to pay again. */
  pending?(purchase: Purchase): Promise<void>;
  /**
   * Systems that can be asked (not Telegram Payments): what the system itself records of the
   * payment with this handle (offered for `minor`), for the daily reconciliation. Throws when
   * it cannot be asked, or its answer cannot be read.
   */
  audit?(handle: string, minor: number): Promise<PaymentRecord>;
}

/** Telegram's invoice in its buyer's chat: sent, and deleted (a deleted invoice cannot be paid). */
export interface InvoiceChannel {
  /** Sends the invoice asking for `payment`; returns the message's handle (opaque). */
  send(purchase: Purchase, payment: PurchasePayment): Promise<string>;
  delete(purchase: Purchase, handle: string): Promise<void>;
}

/** Shows a payment system's link to its buyer (the chat's buttons), and takes it away. */
export interface PaymentLinkChannel {
  /** Returns the message's handle (opaque). */
  show(purchase: Purchase, paymentUrl: string): Promise<string>;
  /** The payment system holds the payment (Khalti's Pending): the buyer is told to wait. */
  pending(purchase: Purchase): Promise<void>;
  hide(purchase: Purchase): Promise<void>;
}

export interface PaymentOffer {
  /** The system's handle (invoice message, pidx): how the purchase is found again. */
  handle: string;
  /** The buyer's message showing the offer, which the outcome replaces (opaque). */
  message?: string;
}

/** What a payment system says of an offer when asked. */
export type PaymentLookup =
  /** Paid, as the system confirms it: the amount it took and its references. */
  | { state: "paid"; minor: number; charge: PaymentCharge }
  /** Not paid yet, or paid and held by the system: keep asking. */
  | { state: "waiting"; pending: boolean }
  /** Never paid: the buyer cancelled or the link expired. */
  | { state: "ended"; cancelled: boolean }
  /** The system itself says it does not know the offer (its own answer, not a proxy's page). */
  | { state: "not-found" }
  /** Paid once and given back already (`partial`: only a part of it). */
  | { state: "refunded"; partial?: boolean };

/**
 * Digits after the decimal point in the currency's minor unit, from the platform's currency
 * data (NPR 2, JPY 0, KWD 3); null for a code the platform does not know.
 */
export function minorUnitDigits(currency: string): number | null {
  // The formatter takes any three letters; the list holds the codes the platform knows.
  if (!Intl.supportedValuesOf("currency").includes(currency)) return null;
  try {
    return (
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
        .maximumFractionDigits ?? null
    );
  } catch {
    return null;
  }
}

/**
 * The amount in minor units, exactly (string arithmetic, never a float); null when it has more
 * decimals than the currency can carry (it cannot be asked for exactly).
 */
export function toMinorUnits(amount: Amount, digits: number): number | null {
  const [whole = "0", fraction = ""] = amount.split(".");
  const significant = fraction.replace(/0+$/, "");
  if (significant.length > digits) return null;
  const minor = Number(`${whole}${fraction.padEnd(digits, "0").slice(0, digits)}`);
  return Number.isSafeInteger(minor) ? minor : null;
}

/**
 * A confirmation pays for this purchase: it waits for exactly this payment, by one of the
 * methods it was offered with (`offered`: the current one, and any the buyer switched away
 * from, whose offer may still be paid).
 */
export function paysFor(
  purchase: Purchase,
  payment: ReceivedPayment,
  offered: ReadonlySet<PaymentMethod>,
): boolean {
  const asked = purchase.payment;
  return (
    purchase.phase === "awaiting-payment" &&
    asked !== undefined &&
    (asked.method === payment.method || offered.has(payment.method)) &&
    asked.currency === payment.currency &&
    asked.minor === payment.minor
  );
}

/** What recording a confirmation did. */
export type PaymentReceipt =
  /** It pays for its purchase, now paid and held by this lease for its top-up. */
  | { kind: "applied"; claim: Claim }
  /** This charge id was recorded before (the same update again). */
  | { kind: "duplicate" }
  /** It pays for nothing (already paid, cancelled, expired, amount differs): owed back. */
  | { kind: "stray"; refund: Refund };

/** A payment owed back, or given back. */
export interface Refund {
  /** The ledger's id of the payment. */
  paymentId: string;
  purchaseId: string | null;
  buyer: number | null;
  /** The buyer's language, when the purchase is known. */
  language: string | null;
  method: PaymentMethod;
  currency: string;
  minor: number;
  chargeId: string;
  providerChargeId: string | null;
  receivedAt: number;
  dueSince: number;
  /** Refund calls begun (refunds through the system's API). */
  attempts: number;
  /** Set once refunded. */
  done?: { at: number; by: string; note: string | null };
}

/** Minor units back to the amount they stand for, exactly ("70000", 2 → "700.00"). */
export function fromMinorUnits(minor: number, digits: number): Amount {
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, "0");
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}
