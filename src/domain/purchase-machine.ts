// The purchase's state machine: every phase, every allowed change of phase (the event that
// causes it and the fields it sets), and the one function that applies a change and refuses any
// other. The ledger's trigger holds the same table (migrations/0003-money-rules.ts; a test pins
// the two together), and docs/architecture.md draws it from `stateDiagram()`.
import type {
  NotChargedReason,
  PaymentCharge,
  Purchase,
  PurchasePhase,
  UnpaidReason,
} from "./purchase.js";

/** What happens to a purchase; each event moves it along one row of TRANSITIONS. */
export type PurchaseEvent =
  /** The payment system confirmed the payment asked for. */
  | { type: "pay"; charge: PaymentCharge }
  /**
   * The payment system confirmed a payment on an offer it still took after the purchase ended
   * unpaid (cancelled, replaced by a newer one, its window over): the purchase is paid after all.
   */
  | { type: "pay-late"; charge: PaymentCharge }
  /** Never paid: cancelled, expired, or paid with another amount (that payment is owed back). */
  | { type: "end-unpaid"; reason: UnpaidReason }
  /** A checkout token is bound to this attempt (the ledger keeps every token a purchase took). */
  | {
      type: "take-token";
      checkout: { id: string; issuedAt: number };
      reference: string;
      attempt: 1 | 2;
    }
  /** The top-up call is about to leave: only txn-status can tell what became of it. */
  | { type: "send" }
  /** The provider has the transaction: charged. */
  | { type: "find"; transaction: NonNullable<Purchase["transaction"]> }
  /** The top-up certainly did not happen, and nobody paid in the bot: nothing was charged. */
  | { type: "refuse"; reason: NotChargedReason }
  /** Nobody can tell yet whether the top-up happened. */
  | { type: "lose-track" }
  /** Paid, and the top-up did not leave: tried again while the payment's window lasts. */
  | { type: "retry-later"; reason: NotChargedReason }
  /** Paid, and the top-up certainly did not happen: the payment is owed back. */
  | { type: "owe"; reason: NotChargedReason }
  /** The payment was given back. */
  | { type: "refund" };

export type PurchaseEventType = PurchaseEvent["type"];

interface Transition {
  event: PurchaseEventType;
  from: readonly PurchasePhase[];
  to: PurchasePhase;
  /** The purchase's fields the event sets besides its phase. */
  sets: readonly string[];
  /** Who may take it: paid money is never "not charged", unpaid money is never owed back. */
  paid?: boolean;
}

/** Every allowed change of phase. A purchase starts as created, or awaiting-payment when paid in the bot. */
export const TRANSITIONS: readonly Transition[] = [
  { event: "pay", from: ["awaiting-payment"], to: "paid", sets: ["payment.charge"] },
  {
    event: "pay-late",
    from: ["unpaid"],
    to: "paid",
    sets: ["payment.charge", "reason"],
    paid: false,
  },
  { event: "end-unpaid", from: ["awaiting-payment"], to: "unpaid", sets: ["reason"] },
  {
    event: "take-token",
    from: ["created", "paid", "token-taken", "requested"],
    to: "token-taken",
    sets: ["checkout", "reference", "attempt"],
  },
  { event: "send", from: ["token-taken"], to: "requested", sets: [] },
  {
    event: "find",
    // Any attempt may turn up at the provider, even after it was judged absent (txn-status lags).
    from: ["token-taken", "requested", "unknown", "paid", "refund-due"],
    to: "charged",
    sets: ["transaction", "reason"],
  },
  {
    event: "refuse",
    from: ["created", "token-taken", "requested", "unknown"],
    to: "not-charged",
    sets: ["reason"],
    paid: false,
  },
  {
    event: "lose-track",
    from: ["token-taken", "requested", "unknown", "paid"],
    to: "unknown",
    sets: ["reason"],
  },
  {
    event: "retry-later",
    from: ["paid", "token-taken", "requested"],
    to: "paid",
    sets: ["reason"],
    paid: true,
  },
  {
    event: "owe",
    from: ["paid", "token-taken", "requested", "unknown"],
    to: "refund-due",
    sets: ["reason"],
    paid: true,
  },
  { event: "refund", from: ["refund-due"], to: "refunded", sets: [] },
];

/** A change the machine does not allow: a bug, or a stale copy of the purchase. */
export class ForbiddenTransitionError extends Error {
  override name = "ForbiddenTransitionError";
  constructor(
    readonly purchaseId: string,
    readonly from: PurchasePhase,
    readonly event: PurchaseEventType,
  ) {
    super(`purchase ${purchaseId}: "${event}" is not allowed in phase ${from}`);
  }
}

/** The transition an event takes from this purchase's phase, or null when it may not. */
export function transitionFor(purchase: Purchase, event: PurchaseEventType): Transition | null {
  const isPaid = purchase.payment?.charge !== undefined;
  return (
    TRANSITIONS.find(
      (t) =>
        t.event === event &&
        t.from.includes(purchase.phase) &&
        (t.paid === undefined || t.paid === isPaid),
    ) ?? null
  );
}

/**
 * Applies an event to the purchase (in place, as every caller holds one copy) or throws
 * ForbiddenTransitionError. The phase and the fields the event sets change together.
 */
export function advance(purchase: Purchase, event: PurchaseEvent, now: number): Purchase {
  const transition = transitionFor(purchase, event.type);
  if (!transition) throw new ForbiddenTransitionError(purchase.id, purchase.phase, event.type);
  switch (event.type) {
    case "pay":
    case "pay-late":
      if (!purchase.payment) {
        throw new ForbiddenTransitionError(purchase.id, purchase.phase, event.type);
      }
      purchase.payment = { ...purchase.payment, charge: event.charge };
      // Why it had ended is said once, when the payment is told (PaymentReceipt's `late`).
      purchase.reason = null;
      break;
    case "take-token":
      purchase.checkout = event.checkout;
      purchase.reference = event.reference;
      purchase.attempt = event.attempt;
      break;
    case "find":
      purchase.transaction = event.transaction;
      purchase.reason = null;
      break;
    case "lose-track":
      purchase.reason = null;
      break;
    case "end-unpaid":
    case "refuse":
    case "retry-later":
    case "owe":
      purchase.reason = event.reason;
      break;
    case "send":
    case "refund":
      break;
  }
  purchase.phase = transition.to;
  purchase.updatedAt = now;
  return purchase;
}

/** Every (from, to) pair with from ≠ to: what the ledger's trigger allows. */
export function phaseChanges(): [PurchasePhase, PurchasePhase][] {
  const pairs = new Map<string, [PurchasePhase, PurchasePhase]>();
  for (const { from, to } of TRANSITIONS) {
    for (const phase of from) if (phase !== to) pairs.set(`${phase}>${to}`, [phase, to]);
  }
  return [...pairs.values()];
}

/** The machine as a Mermaid state diagram (docs/architecture.md holds this text). */
export function stateDiagram(): string {
  const lines = ["stateDiagram-v2", "    [*] --> created", "    [*] --> awaiting_payment"];
  const id = (phase: PurchasePhase) => phase.replaceAll("-", "_");
  for (const { event, from, to } of TRANSITIONS) {
    for (const phase of from) lines.push(`    ${id(phase)} --> ${id(to)}: ${event}`);
  }
  for (const phase of ["charged", "not-charged", "unpaid", "refunded"] as const) {
    lines.push(`    ${id(phase)} --> [*]`);
  }
  return lines.join("\n");
}

/**
 * What became of a purchase, in one word for its buyer, support and finance alike. "declined"
 * (the provider refused it) is kept apart from the other not-charged purchases; "unknown" is
 * requested or unknown (only txn-status can tell); "pending" has not left yet (seconds long).
 */
export const OUTCOMES = [
  "charged",
  "declined",
  "not-charged",
  "unknown",
  "pending",
  "awaiting-payment",
  "unpaid",
  "refund-due",
  "refunded",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Each phase's outcome; not-charged with the reason "declined" is "declined". */
export const OUTCOME_OF_PHASE: Readonly<Record<PurchasePhase, Outcome>> = {
  created: "pending",
  "token-taken": "pending",
  paid: "pending",
  requested: "unknown",
  unknown: "unknown",
  charged: "charged",
  "not-charged": "not-charged",
  "awaiting-payment": "awaiting-payment",
  unpaid: "unpaid",
  "refund-due": "refund-due",
  refunded: "refunded",
};

export function outcomeOf(purchase: Pick<Purchase, "phase" | "reason">): Outcome {
  if (purchase.phase === "not-charged" && purchase.reason === "declined") return "declined";
  return OUTCOME_OF_PHASE[purchase.phase];
}
