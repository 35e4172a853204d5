// What a payment is to the domain, whatever system took it: the amount asked in the currency's
// minor units, the references the payment system gave, and the port each system implements.
import type { PaymentRecord } from "./daily-reconciliation.js";
import type { Amount } from "./money.js";
import type { Lease } from "./ports.js";
import type {
  Claim,
  PaymentCharge,
  PaymentMethod,
  Purchase,
  PurchasePayment,
  UnpaidReason,
} from "./purchase.js";

/** A confirmation from the payment system itself, as received. */
export interface ReceivedPayment {
  method: PaymentMethod;
  /** Our payload: the purchase id. */
  purchaseId: string;
  currency: string;
  minor: number;
  charge: PaymentCharge;
  /**
   * Who paid, where the payment system says (Telegram: the user who paid); null or absent
   * where it does not. A payment by anyone but the purchase's buyer pays for nothing.
   */
  payer?: number | null;
  /**
   * The payment system says part of it went back outside the bot before it paid for anything
   * (Khalti's Partially Refunded, eSewa's PARTIAL_REFUND): it pays for nothing (partial money
   * is no top-up), and the rest is owed back. `minor`: how much went back, where the system
   * says (neither does: null).
   */
  refundedOutside?: { minor: number | null };
}

/** Why a refund through a payment system's API was left to a person. */
export type RefundByHand =
  /** Its tries ran out without an answer. */
  | "failed"
  /** The system refused it (refunded before, or never paid). */
  | "refused"
  /** Khalti refunds a bank payment only with the payer's mobile number, which the bot lacks. */
  | "needs-mobile";

/** The ledger's payments (adapters/ledger/payment-ledger.ts): each method is one transaction. */
export interface PaymentLedger {
  /**
   * Records a payment confirmation, once per charge id: the purchase it pays for becomes paid
   * and is leased to the caller for its top-up; any other is owed back.
   */
  receivePayment(payment: ReceivedPayment, leaseMs: number): Promise<PaymentReceipt>;
  /** The buyer's purchases still waiting for a payment. */
  awaitingPayment(buyer: number): Promise<Purchase[]>;
  /** Payments owed back, oldest first (a page of them: of some methods, after one). */
  refundsDue(count: number, page?: RefundsPage): Promise<Refund[]>;
  /** The refund a purchase's own payment is owed, if it is. */
  refundDueFor(purchaseId: string): Promise<Refund | null>;
  /**
   * Refunds owed that a person names by any reference /refunds shows: the purchase id, the
   * payment system's id (charge id: pidx, transaction_uuid, Telegram's charge) or the other one
   * it gives (Khalti's transaction, eSewa's ref_id, the provider's charge). At most `count`.
   */
  refundsByReference(reference: string, count: number): Promise<Refund[]>;
  /**
   * Marks the refund of this payment (the ledger's id) done, once, with who and why; its
   * purchase becomes refunded in the same transaction, and leased for `leaseMs` to whoever
   * marked it when its lease was free (`lease`): the holder tells it, else the one who holds it
   * or the next reconciliation does. Null when it is not owed (any more).
   */
  markRefunded(
    paymentId: string,
    by: string,
    note: string | null,
    leaseMs: number,
  ): Promise<MarkedRefund | null>;
  /** Its refund through the system's API is left to a person, and why (said in /refunds). */
  handOverRefund(paymentId: string, why: RefundByHand): Promise<void>;
  /** The payer's mobile number kept for the offer this payment was made on; null if none. */
  payerMobileFor(paymentId: string): Promise<string | null>;
  /**
   * Keeps the payer's complete mobile number for a Khalti offer, first one only, and only when
   * `transactionId` is the transaction its recorded payment has (Khalti's own lookup gave it):
   * true when kept now.
   */
  keepPayerMobile(offer: OfferRef, transactionId: string, mobile: string): Promise<boolean>;
  /**
   * The purchase an offer's handle names (Khalti's pidx on the return page), whether the offer
   * is the purchase's current one or one withdrawn when the buyer chose another method.
   */
  byOffer(method: PaymentMethod, handle: string): Promise<Purchase | null>;
  /**
   * Offers watched (withdrawn by a switch of method, or whose purchase ended unpaid) of these
   * methods, due by `asOf` (the database's clock when absent), at most `count`: a payment made
   * on one must still be found. Each is taken for `nextLookMs` so that instances look up
   * different ones.
   */
  offersToLook(
    methods: PaymentMethod[],
    count: number,
    nextLookMs: number,
    asOf?: number,
  ): Promise<OfferRef[]>;
  /** A watched offer needs no more looking up (paid and recorded, ended, or expired). */
  closeOffer(offer: OfferRef): Promise<void>;
  /** Until when the payment system takes a payment on this offer; null when not known. */
  offerPayableUntil(offer: OfferRef): Promise<number | null>;
  /**
   * The offer stays payable until at least `until` (eSewa: its pay page served the signed
   * form again, which the buyer may post later): it is watched that long.
   */
  keepOfferUntil(offer: OfferRef, until: number): Promise<void>;
  /** A watched offer still open is looked up next at `at` (`nextLateLook`), not before. */
  lookOfferAt(offer: OfferRef, at: number): Promise<void>;
  /**
   * Takes or renews `owner`'s lease on this payment's refund through its system's API for `ms`
   * (one conditional write): "claimed"; "held" by another live lease; "settled" when it is owed
   * no more through the API (refunded, or left to a person). Only the holder calls the API.
   */
  claimRefund(paymentId: string, owner: string, ms: number): Promise<RefundClaim>;
  /** `owner` lets its lease on this payment's refund go (a lease it no longer holds is left). */
  releaseRefund(paymentId: string, owner: string): Promise<void>;
  /**
   * Counts one more refund call of a payment still owed, as it leaves, and records it sent
   * (outcome unknown until answered), under `owner`'s live lease (renewed for `ms`); null when
   * it is owed no more, the lease was lost, or an earlier call's outcome is still unknown: no
   * call then.
   */
  countRefundAttempt(paymentId: string, owner: string, ms: number): Promise<number | null>;
  /**
   * The refund call's outcome is known to be "not refunded" (the system refused it, or its own
   * lookup says the payment is not refunded): another call may follow. `owner`'s lease only.
   */
  refundAnswered(paymentId: string, owner: string): Promise<void>;
  /**
   * Sets aside a payment that cannot be recorded as it came (an impossible amount, or one the
   * ledger refused), in a place of its own, once per method and charge id: the row when it is
   * new, null when it was set aside before. Throws PaymentRefused when even that is refused,
   * and any other error while the ledger is away. `kind` "unsettled": an offer its system has
   * not settled after it could no longer be paid (the payment is the one asked, its charge id
   * the offer's handle), raised once; a payment set aside later on that offer takes its place.
   */
  setAside(
    payment: ReceivedPayment,
    buyer: number | null,
    reason: string,
    kind?: SetAside["kind"],
  ): Promise<SetAside | null>;
  /** Payments set aside and not closed by a person, oldest first. */
  setAsideOpen(count: number): Promise<SetAside[]>;
  /** Open ones a person names by the purchase id, the charge id or the other id. */
  setAsideByReference(reference: string, count: number): Promise<SetAside[]>;
  /** Whether a payment of this purchase was set aside (closed or not; not an unsettled offer). */
  hasSetAside(purchaseId: string): Promise<boolean>;
  /**
   * A person checked a payment set aside and settled it outside the bot: closed once, with who
   * and why. Null when none is open by that method and charge id.
   */
  closeSetAside(
    method: string,
    chargeId: string,
    by: string,
    note: string | null,
  ): Promise<SetAside | null>;
  /** The system settled an offer raised as unsettled: closed by the bot, with what it said. */
  settleUnsettled(offer: OfferRef, note: string): Promise<boolean>;
}

/**
 * The ledger answered and refused to record a payment (a constraint, a value it cannot take, a
 * money rule of its own): asking again gets the same answer, so it is set aside, not retried.
 */
export class PaymentRefused extends Error {
  constructor(readonly reason: string) {
    super(`the ledger refused a payment: ${reason}`);
    this.name = "PaymentRefused";
  }
}

/**
 * A payment set aside for a person: what the payment system said, as it said it (the amount
 * may be impossible), why it was set aside, and when a person closed it.
 */
export interface SetAside {
  /**
   * "payment": a payment that cannot be recorded as it came; "unsettled": an offer whose
   * system still gave no final answer after it could no longer be paid (still looked up).
   */
  kind: "payment" | "unsettled";
  method: string;
  purchaseId: string | null;
  buyer: number | null;
  currency: string | null;
  /** The amount in minor units as the payment system stated it, written out. */
  amount: string;
  chargeId: string;
  providerChargeId: string | null;
  reason: string;
  setAsideAt: number;
  closed?: { at: number; by: string; note: string | null };
}

/**
 * Why an amount a payment system stated cannot be a payment (nothing, less than nothing, not a
 * whole number of minor units, or beyond exact integers); null when it can be one.
 */
export function impossibleAmount(minor: number): string | null {
  if (!Number.isSafeInteger(minor)) return "the amount is not a whole number of minor units";
  if (minor <= 0) return "the amount is not positive";
  return null;
}

/** A complete Nepali mobile number, with or without the country code (977). */
const COMPLETE_MOBILE = /^(?:\+?977[- ]?)?(9\d{9})$/;

/**
 * The payer's mobile number as a payment system's page gave it, when it is complete (ten
 * digits from 9, the country code dropped); null for a masked one (98XXXXX001) or anything
 * else: only a complete number is of any use to a refund.
 */
export function completeMobile(text: string): string | null {
  return COMPLETE_MOBILE.exec(text.trim())?.[1] ?? null;
}

/**
 * Operators told what only a person can settle, and the buyer of a payment set aside. Each
 * alert is said once (across replicas and restarts), however often the bot meets its cause.
 */
export interface PaymentAlarm {
  /** A confirmation neither the ledger nor the journal took: it waits with Telegram. */
  notKept(payment: ReceivedPayment): Promise<void>;
  /**
   * A payment set aside: to be checked with the payment system and closed by a person; an
   * unsettled offer: to be watched (the bot keeps asking).
   */
  setAside(payment: SetAside): Promise<void>;
  /** The buyer of a payment set aside: staff check it; they need not pay again. */
  tellBuyer(buyer: number, language: string): Promise<void>;
  /** Lines of the payment journal that could not be believed, moved to its quarantine. */
  quarantined(lines: number): Promise<void>;
}

/** Who says a thing once, across replicas and restarts (the alert ledger). */
export interface AlertClaims {
  /** True for the one caller that may say `subject` within `ttlMs`. */
  claim(subject: string, ttlMs: number): Promise<boolean>;
}

/**
 * Confirmations the ledger could not take yet, kept where the next process finds them: each is
 * replayed into the ledger until it is there (its charge id makes a replay harmless).
 */
export interface PaymentJournal {
  /**
   * Resolves once the confirmation is durable (flushed to disk); throws when it cannot be. One
   * entry per payment (method and charge id): the same confirmation again (delivered again, or
   * found again by a lookup, while the ledger is away) is kept already and adds nothing.
   */
  append(payment: ReceivedPayment): Promise<void>;
  /**
   * Every confirmation kept that can be believed, oldest first. Any other entry (unreadable,
   * torn by a crash, without its MAC or failing it) is never believed: it is moved to a
   * quarantine for a person, and counted in `quarantined` (those moved since the last read).
   */
  read(): Promise<JournalContent>;
  /** These charge ids are in the ledger: their entries go, and the journal once it is empty. */
  settle(chargeIds: ReadonlySet<string>): Promise<void>;
  /**
   * The last resort for a payment the ledger refuses even to set aside: a file of its own, once
   * per method and charge id; true when it is new there. Throws when it cannot be written.
   */
  setAside(payment: ReceivedPayment, reason: string): Promise<boolean>;
}

export interface JournalContent {
  payments: ReceivedPayment[];
  /** Entries moved to the quarantine since the last read. */
  quarantined: number;
}

/** One offer made for a purchase: its method and the system's handle (invoice message, pidx). */
export interface OfferRef {
  purchaseId: string;
  method: PaymentMethod;
  handle: string;
  /**
   * Until when its payment system takes a payment on it: null when the ledger does not know,
   * absent when it was not read.
   */
  payableUntil?: number | null;
}

/** The payment systems offered, by method, in the order of the buyer's buttons. */
export type PaymentSystems = ReadonlyMap<PaymentMethod, PaymentSystem>;

/** A payment system: offers a purchase for payment and takes the offer back. */
export interface PaymentSystem {
  readonly method: PaymentMethod;
  /** The least it takes, in minor units, when above one (Khalti: 1000 paisa). */
  readonly minimumMinor?: number;
  /**
   * How long after an offer's payable-until it is still watched before its last look (none when
   * absent): the system's expiry is read with our clock, which may run ahead of the system's
   * (Khalti's expires_at), or the system publishes none (eSewa). See `watchedUntil`.
   */
  readonly watchMarginMs?: number;
  /**
   * Sends the invoice (or link) to the buyer. `record` writes the offer's handle to the ledger,
   * with until when the system itself takes a payment on it: a system whose payments are found
   * by it calls it before the buyer can pay.
   */
  offer(
    purchase: Purchase,
    record: (handle: string, payableUntil: number) => Promise<void>,
  ): Promise<PaymentOffer>;
  /** Makes the offer unpayable, or at least takes its buttons away; best effort. */
  withdraw(purchase: Purchase): Promise<void>;
  /**
   * Systems whose confirmation must be asked for (Khalti): what became of the offer that
   * `purchase.payment` names (its method and handle: the current offer, or a withdrawn one).
   * Throws when the system cannot be asked now.
   */
  lookup?(purchase: Purchase): Promise<PaymentLookup>;
  /**
   * Systems that refund through their API (Khalti): gives back what is owed, the whole payment
   * or, when part of it went back outside the bot by a stated amount, the rest (never asked for
   * a rest nobody states: refunds.ts). "refused": the system will not (already refunded, or never paid);
   * "needs-mobile": it asks for the payer's mobile number (a Khalti bank payment), sent when
   * given (`payerMobile`); throws when the outcome is not known.
   */
  refund?(refund: Refund, payerMobile?: string): Promise<"refunded" | "refused" | "needs-mobile">;
  /**
   * Systems that refund through their API: whether this payment is now refunded in full, by the
   * system's own lookup (what a refund call whose answer was lost did). Throws when it cannot
   * tell: asked again later.
   */
  refunded?(refund: Refund): Promise<boolean>;
  /**
   * The system holds a payment (Khalti's Pending, eSewa's AMBIGUOUS), or says it was started
   * and not finished (eSewa's PENDING): tells the buyer so.
   */
  pending?(purchase: Purchase, how: PendingKind): Promise<void>;
  /**
   * The offer the purchase's payment names was paid: what it still offers besides (a Telegram
   * invoice's Cancel) is taken away. Cosmetic and best effort: the ledger decides, never this.
   */
  paid?(purchase: Purchase): Promise<void>;
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
  /** Paid: the invoice keeps only the button Telegram requires (its receipt), no Cancel. */
  paid(purchase: Purchase, handle: string): Promise<void>;
}

/**
 * What a payment system that has not settled a payment says of it: "held", it holds the payment
 * (Khalti's Pending, eSewa's AMBIGUOUS: do not pay again); "unfinished", it was started there
 * and not finished (eSewa's PENDING).
 */
export type PendingKind = "held" | "unfinished";

/** Shows a payment system's link to its buyer (the chat's buttons), and takes it away. */
export interface PaymentLinkChannel {
  /** Returns the message's handle (opaque). */
  show(purchase: Purchase, paymentUrl: string): Promise<string>;
  /** The payment system has not settled the payment: the buyer is told what it says. */
  pending(purchase: Purchase, how: PendingKind): Promise<void>;
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
  /**
   * Not paid yet, or not settled by the system (`pending`: held, or started and not finished):
   * keep asking.
   */
  | { state: "waiting"; pending: false }
  | { state: "waiting"; pending: PendingKind }
  /**
   * Never paid: the buyer cancelled, the link expired, or the payment failed at the system
   * (`failed`: Khalti's Failed, final; nothing was taken).
   */
  | { state: "ended"; cancelled: boolean; failed?: true }
  /** The system itself says it does not know the offer (its own answer, not a proxy's page). */
  | { state: "not-found" }
  /** Paid once and given back in full already, outside the bot. */
  | { state: "refunded" }
  /**
   * Paid, and part of it given back outside the bot (Khalti's Partially Refunded, eSewa's
   * PARTIAL_REFUND): the amount it took and its references; how much went back where said.
   */
  | {
      state: "refunded-in-part";
      minor: number;
      charge: PaymentCharge;
      refundedMinor: number | null;
    }
  /**
   * The system says it was paid, but its answer cannot be believed as it came (eSewa's
   * COMPLETE for another amount than asked): set aside for a person, with why.
   */
  | { state: "doubtful"; minor: number; charge: PaymentCharge; reason: string };

/**
 * What a lookup answers for a purchase whose offer is not recorded yet (mid-switch: the method
 * committed, its offer about to be made): nothing paid yet, and nothing ended either (only a
 * system's own word ends an offer).
 */
export const NO_OFFER_YET: PaymentLookup = { state: "waiting", pending: false };

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
 * A confirmation pays for this purchase: it waits for exactly this payment, whole (none of it
 * given back outside the bot), by one of the methods it was offered with (`offered`: the current one, and any the buyer switched away
 * from, whose offer may still be paid), made by its buyer where the system names the payer. A
 * purchase that ended unpaid (cancelled, replaced by a newer one, its window over) is paid by it
 * too: the payment system still took a payment on one of its offers, and nothing else paid for it.
 */
export function paysFor(
  purchase: Purchase,
  payment: ReceivedPayment,
  offered: ReadonlySet<PaymentMethod>,
): boolean {
  const asked = purchase.payment;
  return (
    // Given back in part outside the bot: partial money is no top-up.
    payment.refundedOutside === undefined &&
    (purchase.phase === "awaiting-payment" || purchase.phase === "unpaid") &&
    asked !== undefined &&
    asked.charge === undefined &&
    (asked.method === payment.method || offered.has(payment.method)) &&
    asked.currency === payment.currency &&
    asked.minor === payment.minor &&
    (payment.payer == null || payment.payer === purchase.buyer)
  );
}

/** What recording a confirmation did. */
export type PaymentReceipt =
  /**
   * It pays for its purchase, now paid and held by this lease for its top-up; `late`: the
   * purchase had ended unpaid, for this reason, before the payment was found.
   */
  | { kind: "applied"; claim: Claim; late?: UnpaidReason }
  /** This charge id was recorded before (the same update again). */
  | { kind: "duplicate" }
  /**
   * It pays for nothing (already paid, cancelled, expired, amount differs, paid by someone
   * other than the buyer): owed back.
   */
  | { kind: "stray"; refund: Refund };

/**
 * What taking the lease on a refund found (PaymentLedger.claimRefund): taken, with the calls
 * counted so far and whether the last one's outcome is unknown (`sent`: left, answer lost);
 * held by another live lease; or owed no more through the API.
 */
export type RefundClaim =
  | { state: "claimed"; attempts: number; sent: boolean }
  | { state: "held" }
  | { state: "settled" };

/** A payment owed back, or given back. */
/** A page of refunds owed: of these methods only, after this one (oldest first). */
export interface RefundsPage {
  methods?: readonly PaymentMethod[];
  after?: Pick<Refund, "dueSince" | "paymentId">;
}

export interface Refund {
  /** The ledger's id of the payment. */
  paymentId: string;
  purchaseId: string | null;
  buyer: number | null;
  /** Who paid, where the system says (Telegram); the money is theirs when it is not the buyer. */
  payer?: number | null;
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
  /** A refund call left and its answer was lost: whether it refunded is to be found out. */
  sentAt?: number;
  /**
   * Part of it went back outside the bot before it paid for anything (when that was seen; how
   * much, where the system said): what is owed is the rest.
   */
  refundedOutside?: { at: number; minor: number | null };
  /** Why its refund through the system's API was left to a person, when it was. */
  byHand?: RefundByHand;
  /** Set once refunded. */
  done?: { at: number; by: string; note: string | null };
}

/** A refund just marked done. */
export interface MarkedRefund extends Refund {
  /**
   * Its purchase became refunded with it (the payment was its purchase's); false for a payment
   * that paid for nothing (a second one, a stray one): its purchase stays as it was.
   */
  purchaseRefunded: boolean;
  /** Held on the purchase that became refunded, when its lease was free. */
  lease?: Lease;
}

/** Minor units back to the amount they stand for, exactly ("70000", 2 → "700.00"). */
export function fromMinorUnits(minor: number, digits: number): Amount {
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, "0");
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * Until when an offer payable until `payableUntil` (its system's expiry, or ours where the system
 * states none) is watched: then one last look. Both are read with our clock, and a clock running
 * ahead of the system's would stop watching while the system still takes a payment: the system's
 * margin (`PaymentSystem.watchMarginMs`) covers that.
 */
export function watchedUntil(
  payableUntil: number,
  system: Pick<PaymentSystem, "watchMarginMs"> | undefined,
): number {
  return payableUntil + Math.max(0, system?.watchMarginMs ?? 0);
}

/** An offer in its margin is looked up at least this seldom (an hour at most). */
const LATE_LOOK_MAX_MS = 60 * 60_000;

/**
 * When an offer past its payable-until, still watched (in its margin), is looked up next: after
 * a quarter of the time since its payable-until, no sooner than `checkMs` and no later than an
 * hour, so that a day's margin costs about fifty lookups, not thousands; and never later than
 * just after its watch ends, so that the last look comes on time.
 */
export function nextLateLook(
  now: number,
  payableUntil: number,
  watchEnd: number,
  checkMs: number,
): number {
  const delay = Math.min(LATE_LOOK_MAX_MS, Math.max(checkMs, (now - payableUntil) / 4));
  return Math.min(now + delay, watchEnd + 1);
}
