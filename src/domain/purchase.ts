// A purchase: one record per confirmed selection, with explicit phases, written before every
// external effect. It is what makes top-ups exactly-once (an existing record is resolved with
// txn-status, never paid again) and never lost (whatever is open is finished by reconciliation).
// Its phases and every allowed change between them are declared once, in purchase-machine.ts.
//
// "told" is kept apart (`told`: the phase the buyer was last told), so that an outcome learned
// later (unknown, then charged) is told again.
import type { ProviderTime, ServiceKind } from "./model.js";
import type { Amount } from "./money.js";
import type { Lease } from "./ports.js";

/** Every phase a purchase can be in (the changes between them: purchase-machine.ts). */
export const PURCHASE_PHASES = [
  /** The intent is claimed; nothing was sent. */
  "created",
  /** A checkout token is bound to this attempt; nothing was sent. */
  "token-taken",
  /** The top-up call is leaving (written just before it): only txn-status can tell. */
  "requested",
  "charged",
  "not-charged",
  /** The provider could not be asked: checked again later. */
  "unknown",
  /** The invoice is out; nothing was paid yet. */
  "awaiting-payment",
  /** The payment system confirmed the payment; the top-up has not left yet. */
  "paid",
  /** Not paid in time: cancelled, or its window passed (a payment found later still pays it). */
  "unpaid",
  /** Paid, and the top-up certainly did not happen: the payment is owed back. */
  "refund-due",
  "refunded",
] as const;

export type PurchasePhase = (typeof PURCHASE_PHASES)[number];

/** Phases still to be resolved, watched by reconciliation. */
export const OPEN_PHASES: ReadonlySet<PurchasePhase> = new Set([
  "created",
  "token-taken",
  "requested",
  "unknown",
  "awaiting-payment",
  "paid",
]);

/** Phases a buyer is told about. */
export const TOLD_PHASES: readonly PurchasePhase[] = [
  "charged",
  "not-charged",
  "unknown",
  "unpaid",
  "refund-due",
  "refunded",
];

/** Still to be resolved: an open purchase is watched by reconciliation. */
export const isOpen = (purchase: Purchase) => OPEN_PHASES.has(purchase.phase);

/**
 * A paid purchase whose top-up waits until the provider takes our token again: no outcome yet,
 * but its buyer is told at once (and once) why nothing happens.
 */
const waitsForTopups = (purchase: Purchase) =>
  purchase.phase === "paid" && purchase.reason === "paused";

/** An outcome the buyer has not been told yet. */
export const isUntold = (purchase: Purchase) =>
  (TOLD_PHASES.includes(purchase.phase) || waitsForTopups(purchase)) &&
  purchase.told !== purchase.phase;

export type NotChargedReason =
  /** Refused on the second attempt, or refused for good. */
  | "declined"
  /** The outcome was unknown; txn-status showed that nothing happened. */
  | "verified"
  /** The request never left, or no fresh token could be taken. */
  | "unavailable"
  /** The provider refuses our credentials: top-ups are paused. */
  | "paused"
  /** The process stopped before the request left. */
  | "interrupted"
  /** The price or name changed, or the bouquet is gone: the buyer was asked again. */
  | "offer-changed"
  /** Unpaid: the buyer cancelled before paying. */
  | "cancelled"
  /** Unpaid: the payment window passed. */
  | "expired"
  /** Unpaid: the payment system took another amount than asked (that payment is owed back). */
  | "amount-differs"
  /** Unpaid: the payment failed at the payment system (Khalti's Failed): nothing was taken. */
  | "failed"
  /**
   * Unpaid: the payment system gave the payment back, in full or in part, outside the bot
   * before it paid for anything (what was not given back is owed back).
   */
  | "refunded-outside";

/** Why a purchase paid in the bot was never paid. */
export type UnpaidReason = Extract<
  NotChargedReason,
  "cancelled" | "expired" | "amount-differs" | "failed" | "refunded-outside"
>;

export interface Purchase {
  /** The intent id: unique per confirmed selection, so double taps carry the same one. */
  id: string;
  /**
   * The ledger's version of this copy: every write names it and is refused when the row moved
   * on since (a stale copy never overwrites a newer one). 0 until first written.
   */
  version: number;
  /** The bot user who confirmed; the outcome is told to them. */
  buyer: number;
  language: string;
  customer: { cuid: string; name: string };
  connection: { service: ServiceKind; id: string };
  /** What the buyer agreed to: the code, the name as the provider sent it, the price. */
  bouquet: { code: string; name: string; price: Amount };
  attempt: 1 | 2;
  checkout: { id: string; issuedAt: number } | null;
  /** Our reference of the current attempt, sent as udf1 on v1.0.1 (at most 30 characters). */
  reference: string | null;
  phase: PurchasePhase;
  told: PurchasePhase | null;
  transaction: { txnId: string; amount: Amount; date: ProviderTime | null } | null;
  /** What the buyer pays in the bot; absent when nobody pays in the bot (PAYMENT_MODE=none). */
  payment?: PurchasePayment;
  /**
   * The subscription's end as the provider lists it after the top-up, for the receipt: absent
   * until asked, null when it could not be read.
   */
  renewedUntil?: ProviderTime | null;
  /** The buyer's "payment under way" message (opaque): the first outcome told replaces it. */
  statusMessage?: string;
  /**
   * The buyer's menu that still offers other ways to pay (opaque), where several are offered:
   * its buttons are taken away once the purchase no longer waits for a payment.
   */
  menuMessage?: string;
  /** Started from an expiry reminder's Renew button. */
  fromReminder?: true;
  /**
   * The buyer proved the customer theirs (their own shared contact, or a connection saved from
   * one): shown in full wherever it appears. Absent: found by a code typed (or not recorded, as
   * before this was kept), shown masked (bot/shared/masking.ts).
   */
  proved?: true;
  /** The provider's code of the last refusal. */
  refusal: { code: string } | null;
  reason: NotChargedReason | null;
  createdAt: number;
  updatedAt: number;
}

/** A purchase held for work: another instance leaves it alone until the lease lapses. */
export interface Claim {
  id: string;
  lease: Lease;
}

/** What `PurchaseStore.holdToTell` found: the lease, or why not. */
export type TellingHold = Lease | "told" | "held" | "elsewhere";

export type Creation =
  | { kind: "created"; lease: Lease }
  /** This intent was taken already (double tap, replay, another instance). */
  | { kind: "duplicate" }
  /** Another purchase of this buyer is in flight. */
  | { kind: "busy" };

/**
 * A write refused because the purchase moved on since this copy was read (another instance,
 * a late answer): a lost race. The caller reads the purchase again and decides anew.
 */
export class StaleWriteError extends Error {
  override name = "StaleWriteError";
  constructor(readonly purchaseId: string) {
    super(`purchase ${purchaseId} changed since it was read`);
  }
}

/**
 * A purchase could not be put in flight: another purchase of its buyer is (created, token
 * taken or requested; the ledger holds one at a time). A paid one waits for its turn.
 */
export class BuyerBusyError extends Error {
  override name = "BuyerBusyError";
  constructor(readonly purchaseId: string) {
    super(`purchase ${purchaseId}: another purchase of its buyer is in flight`);
  }
}

/**
 * The ledger of purchases (adapters/ledger/purchase-store.ts): a phase is written in one
 * transaction, and only over the version it was read at.
 */
export interface PurchaseStore {
  /**
   * Writes a new record and holds its lease; refused when the intent is taken or the buyer
   * has another purchase in flight (created, token taken or requested).
   */
  create(purchase: Purchase, leaseMs: number): Promise<Creation>;
  /**
   * Saves the record with its checkout token bound to it; false when another purchase has
   * that token (then this one must take a fresh token). Throws StaleWriteError as `save`, and
   * BuyerBusyError when another purchase of the buyer is in flight.
   */
  takeCheckout(purchase: Purchase): Promise<boolean>;
  /**
   * Saves the record over the version it was read at, and moves the copy's version on; an open
   * one is looked at again at `dueAt` unless its lease is held. Throws StaleWriteError when the
   * ledger holds a newer version.
   */
  save(purchase: Purchase, dueAt?: number): Promise<void>;
  /**
   * A check that learned nothing new: only the next check time is written, and only while the
   * purchase is still at this version. False when it moved on (nothing is written then).
   */
  postpone(purchase: Purchase, dueAt: number): Promise<boolean>;
  /** Every checkout token the purchase took, oldest first: each may have been topped up. */
  checkouts(purchaseId: string): Promise<string[]>;
  get(id: string): Promise<Purchase | null>;
  byCheckout(checkoutId: string): Promise<Purchase | null>;
  byReference(reference: string): Promise<Purchase | null>;
  /** By the provider's transaction id, the one printed on the customer's receipt. */
  byTransaction(txnId: string): Promise<Purchase | null>;
  /**
   * Takes the earliest open purchase due by `now` whose lease is free (lapsed or given back),
   * other than those in `skip`.
   */
  claimDue(now: number, leaseMs: number, skip?: string[]): Promise<Claim | null>;
  /** Takes the oldest purchase whose outcome its buyer was not told, lease free, not in `skip`. */
  claimUntold(leaseMs: number, skip?: string[]): Promise<Claim | null>;
  /**
   * Holds an untold outcome while it is told, so that it is told once: the lease when the
   * purchase is at `phase`, untold and its lease free; "told" when it was told at that phase
   * already, "held" while another holds it (who tells it, or the next reconciliation), and
   * "elsewhere" when the ledger has it at another phase (moved on, or this one not written yet).
   */
  holdToTell(id: string, phase: PurchasePhase, leaseMs: number): Promise<TellingHold>;
  /** When the earliest open purchase falls due; null when none is open. */
  nextDue(): Promise<number | null>;
  /**
   * The latest purchases, newest first, skipping the first `start`; with `codes`, only those
   * whose customer id or connection is one of them (any case).
   */
  recent(count: number, options?: { start?: number; codes?: string[] }): Promise<Purchase[]>;
  /** A buyer's latest purchases, newest first. */
  ofBuyer(buyer: number, count: number): Promise<Purchase[]>;
  /** Purchases charged that an expiry reminder's Renew button started. */
  renewalsAfterReminders(): Promise<number>;
}

/** Every payment system the bot can offer; a new one is one entry here (and its adapter). */
export const PAYMENT_METHODS = ["telegram", "khalti", "esewa", "fonepay"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** The payment a paid purchase asks for, and what it took once paid. */
export interface PurchasePayment {
  method: PaymentMethod;
  currency: string;
  /** The price in the currency's minor units (NPR 700.00 is 70000): what must be paid. */
  minor: number;
  /** Payable in the bot until then (the purchase's window). */
  expiresAt: number;
  /** The system's handle of the offer (the invoice message, Khalti's pidx): opaque here. */
  offer?: string;
  /**
   * Until when the payment system itself takes a payment on this offer (Khalti's expires_at,
   * eSewa's configured session), which may be later than `expiresAt`: the offer is watched
   * until then whatever becomes of the purchase. Absent for systems that need no watching.
   */
  offerUntil?: number;
  /** Set once paid: the confirmation's references. */
  charge?: PaymentCharge;
}

export interface PaymentCharge {
  /** The payment system's id of this payment (telegram_payment_charge_id): unique. */
  id: string;
  /** The acquirer's id (provider_payment_charge_id), which its refunds are issued by. */
  providerId: string | null;
  at: number;
}
