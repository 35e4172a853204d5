// The top-up journal: the durable record of every top-up attempt that makes top-ups
// exactly-once. Written before the top-up call; an existing entry means "resolve it with
// txn-status", never "call top-up again".
import type { BillingPeriod, ServiceKind } from "./model.js";

/**
 * pending: written before the top-up call; its outcome is not known yet.
 * done: the provider confirmed the transaction. not-charged: verified that nothing happened.
 * failed: refused or never sent; nothing happened.
 */
export type JournalState = "pending" | "done" | "not-charged" | "failed";

/** Why a failed attempt failed. */
export type FailureKind = "rejected" | "unauthorized" | "unavailable";

/** One top-up attempt, keyed by its checkout id. Everything needed to tell the buyer later. */
export interface JournalEntry {
  checkoutId: string;
  /** One user intent may take two attempts (a refused token is replaced once). */
  intentId: string;
  /** Our reference sent as udf1 on v1.0.1 (at most 30 characters). */
  reference: string;
  /** The bot user who confirmed it; the outcome is told to them. */
  buyer: number;
  language: string;
  cuid: string;
  customerName: string;
  service: ServiceKind;
  connectionId: string;
  bouquetCode: string;
  bouquetName: string;
  period: BillingPeriod | null;
  amount: number;
  /** When the checkout token was issued (ms); reconciliation needs its age. */
  checkoutIssuedAt: number;
  createdAt: number;
  updatedAt: number;
  state: JournalState;
  transaction?: { txnId: string; amount: number; date: number };
  failure?: { kind: FailureKind; code?: string };
}

export type SettledState = Exclude<JournalState, "pending">;

export interface JournalStore {
  /**
   * Writes a pending entry, atomically with its place in the pending index. Returns false when
   * an entry for this checkout id exists already: then the top-up must not be called again.
   */
  create(entry: JournalEntry): Promise<boolean>;
  get(checkoutId: string): Promise<JournalEntry | null>;
  byReference(reference: string): Promise<JournalEntry | null>;
  /**
   * Records the final state, takes the entry out of the pending index and into the untold one
   * until {@link markTold} says the buyer has been told.
   */
  settle(
    entry: JournalEntry,
    state: SettledState,
    details: Pick<JournalEntry, "transaction" | "failure">,
    now: number,
  ): Promise<JournalEntry>;
  markTold(checkoutId: string): Promise<void>;
  /** Checkout ids of entries pending since before `olderThan` (ms), oldest first. */
  pendingSince(olderThan: number, limit?: number): Promise<string[]>;
  /** Settled entries whose outcome the buyer has not been told yet, settled before `olderThan`. */
  untoldSince(olderThan: number, limit?: number): Promise<string[]>;
  /** Up to `count` entries of the latest 1000 created, newest first, skipping the first `start`. */
  recent(count: number, start?: number): Promise<JournalEntry[]>;
}
