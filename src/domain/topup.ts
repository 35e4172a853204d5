// Where a top-up happens. Every rule that keeps money safe lives in this file:
// at most once per user intent, never lost, always verified with txn-status.
import { setTimeout as sleep } from "node:timers/promises";
import type { FailureKind, JournalEntry, JournalStore } from "./journal.js";
import type {
  Bouquet,
  Checkout,
  Connection,
  Customer,
  PackageOffer,
  Transaction,
} from "./model.js";
import type { Clock, Lease, Log, ProviderPort } from "./ports.js";
import { ask, topupFailure } from "./provider-answers.js";

export interface PurchaseIntent {
  /** Unique per confirmed selection: double taps and replays carry the same id. */
  intentId: string;
  /** The bot user who confirmed; the outcome is told to them. */
  buyer: number;
  language: string;
  customer: Customer;
  connection: Connection;
  /** The bouquet and price the user agreed to. */
  bouquet: Bouquet;
  checkout: Checkout;
}

export type PurchaseOutcome =
  /** Done, not charged or failed, as the journal records it: the buyer is told from there. */
  | { kind: "settled"; entry: JournalEntry }
  /** The provider could not be asked in time; the journal stays pending for reconciliation. */
  | { kind: "still-checking"; entry: JournalEntry }
  | { kind: "price-changed"; bouquet: Bouquet; offer: PackageOffer }
  | { kind: "bouquet-gone"; offer: PackageOffer }
  /** A fresh listing could not be taken: nothing was written or sent. */
  | { kind: "unavailable" }
  | { kind: "unauthorized" }
  /** Another purchase of this buyer is in flight. */
  | { kind: "busy" }
  /** This very intent was taken already (double tap, duplicate update, replay). */
  | { kind: "duplicate" };

export interface PurchaseHooks {
  /** The outcome is unknown and txn-status polling starts: tell the user. */
  onChecking?(): Promise<void> | void;
}

export interface TopupServiceOptions {
  checkoutTtlMs: number;
  /** A token older than TTL minus this is replaced before use. */
  checkoutSafetyMarginMs: number;
  /** How long txn-status is polled after an unknown outcome (about two minutes). */
  verifyWindowMs: number;
  verifyFirstDelayMs: number;
  verifyMaxDelayMs: number;
  /** Lease time of the locks; a dead holder's work is taken over after this. */
  lockTtlMs: number;
}

/** The locks that keep a purchase exactly-once across double taps, replays and instances. */
export interface PurchaseGuards {
  /** True the first time an intent is claimed (it is remembered for a day). */
  claimIntent(intentId: string): Promise<boolean>;
  releaseIntent(intentId: string): Promise<void>;
  /** One purchase in flight per buyer. */
  holdBuyer(buyer: number, ttlMs: number): Promise<Lease | null>;
  /** One process at a time works on a checkout. */
  holdCheckout(checkoutId: string, ttlMs: number): Promise<Lease | null>;
}

type Lookup = { found: Transaction } | { found: null; known: boolean };

const settled = (entry: JournalEntry): PurchaseOutcome => ({ kind: "settled", entry });

export class TopupService {
  constructor(
    private readonly provider: ProviderPort,
    private readonly journal: JournalStore,
    private readonly guards: PurchaseGuards,
    private readonly options: TopupServiceOptions,
    private readonly log: Log,
    private readonly now: Clock = Date.now,
  ) {}

  async purchase(intent: PurchaseIntent, hooks: PurchaseHooks = {}): Promise<PurchaseOutcome> {
    if (!(await this.guards.claimIntent(intent.intentId))) return { kind: "duplicate" };
    const guard = await this.guards.holdBuyer(intent.buyer, this.options.lockTtlMs);
    if (!guard) {
      await this.guards.releaseIntent(intent.intentId);
      return { kind: "busy" };
    }
    try {
      return await this.attempt(intent, intent.checkout, intent.bouquet, hooks, 1);
    } finally {
      await guard.release();
    }
  }

  /**
   * Resolves a pending entry left by a process that died or gave up (reconciliation).
   * Returns the settled entry, or null when it is not (yet) decidable or somebody else has it.
   */
  async resolvePending(checkoutId: string): Promise<JournalEntry | null> {
    const lease = await this.guards.holdCheckout(checkoutId, this.options.lockTtlMs);
    if (!lease) return null;
    try {
      const entry = await this.journal.get(checkoutId);
      if (entry?.state !== "pending") return null;
      const lookup = await this.lookup(checkoutId);
      if (lookup.found) return await this.settleDone(entry, lookup.found);
      // Once the token has expired the provider can no longer execute it: nothing happened.
      const expired =
        this.now() - entry.checkoutIssuedAt >
        this.options.checkoutTtlMs + this.options.checkoutSafetyMarginMs;
      if (lookup.known && expired) {
        return await this.journal.settle(entry, "not-charged", {}, this.now());
      }
      return null;
    } finally {
      await lease.release();
    }
  }

  private async attempt(
    intent: PurchaseIntent,
    offeredCheckout: Checkout,
    offeredBouquet: Bouquet,
    hooks: PurchaseHooks,
    attempt: number,
  ): Promise<PurchaseOutcome> {
    let checkout = offeredCheckout;
    let bouquet = offeredBouquet;
    if (this.isStale(checkout)) {
      const fresh = await this.freshOffer(intent, bouquet);
      if ("kind" in fresh) return fresh;
      ({ checkout, bouquet } = fresh);
    }

    const entry = this.newEntry(intent, checkout, bouquet, attempt);
    const lease = await this.guards.holdCheckout(checkout.id, this.options.lockTtlMs);
    if (!lease || !(await this.journal.create(entry))) {
      await lease?.release();
      // Somebody already wrote this checkout's entry: never call top-up twice.
      return { kind: "duplicate" };
    }
    try {
      const transaction = await this.provider.topup({
        cuid: entry.cuid,
        service: entry.service,
        connectionId: entry.connectionId,
        checkoutId: entry.checkoutId,
        bouquetCode: entry.bouquetCode,
        amount: entry.amount,
        reference: entry.reference,
      });
      const verified = await this.lookup(entry.checkoutId);
      if (!verified.found) {
        this.log.warn({ checkoutId: entry.checkoutId }, "top-up succeeded but txn-status lags");
      }
      return settled(await this.settleDone(entry, verified.found ?? transaction));
    } catch (error) {
      const failure = topupFailure(error);
      if (failure.kind === "refused") {
        if (attempt === 1 && this.looksLikeTokenProblem(failure, checkout)) {
          return await this.replaceRefusedToken(intent, entry, failure.code, hooks);
        }
        return await this.fail(entry, "rejected", failure.code);
      }
      if (failure.kind === "unauthorized") return await this.fail(entry, "unauthorized");
      if (failure.kind === "not-sent") return await this.fail(entry, "unavailable");
      this.log.warn(
        { checkoutId: entry.checkoutId, err: error },
        "top-up outcome unknown, polling txn-status",
      );
      await hooks.onChecking?.();
      return await this.pollUntilKnown(entry);
    } finally {
      await lease.release();
    }
  }

  /**
   * The provider refused what is probably a stale token. Make sure the refused attempt did
   * nothing, then try once more with a fresh token (asking again only if the price changed).
   */
  private async replaceRefusedToken(
    intent: PurchaseIntent,
    entry: JournalEntry,
    refusalCode: string,
    hooks: PurchaseHooks,
  ): Promise<PurchaseOutcome> {
    const lookup = await this.lookup(entry.checkoutId);
    if (lookup.found) return settled(await this.settleDone(entry, lookup.found));
    if (!lookup.known) {
      await hooks.onChecking?.();
      return this.pollUntilKnown(entry);
    }
    await this.fail(entry, "rejected", refusalCode);
    const fresh = await this.freshOffer(intent, intent.bouquet);
    if ("kind" in fresh) return fresh;
    return this.attempt(intent, fresh.checkout, fresh.bouquet, hooks, 2);
  }

  private async pollUntilKnown(entry: JournalEntry): Promise<PurchaseOutcome> {
    const deadline = this.now() + this.options.verifyWindowMs;
    let delay = this.options.verifyFirstDelayMs;
    let known = false;
    for (;;) {
      const lookup = await this.lookup(entry.checkoutId);
      if (lookup.found) return settled(await this.settleDone(entry, lookup.found));
      known = lookup.known;
      if (this.now() + delay > deadline) break;
      await sleep(delay);
      delay = Math.min(delay * 2, this.options.verifyMaxDelayMs);
    }
    if (!known) return { kind: "still-checking", entry };
    return settled(await this.journal.settle(entry, "not-charged", {}, this.now()));
  }

  /** txn-status: found, known to be absent, or unknown (provider unavailable). */
  private async lookup(checkoutId: string): Promise<Lookup> {
    const answer = await ask(() => this.provider.txnStatus(checkoutId), this.log, "txn-status");
    return answer.ok
      ? { found: answer.value }
      : { found: null, known: answer.failure === "not-found" };
  }

  private async freshOffer(
    intent: PurchaseIntent,
    bouquet: Bouquet,
  ): Promise<{ checkout: Checkout; bouquet: Bouquet } | PurchaseOutcome> {
    const answer = await ask(
      () => this.provider.getPackages(intent.customer.cuid, intent.connection),
      this.log,
      "package listing",
    );
    if (!answer.ok)
      return { kind: answer.failure === "unauthorized" ? "unauthorized" : "unavailable" };
    const offer = answer.value;
    const current = offer.bouquets.find((candidate) => candidate.code === bouquet.code);
    if (!current) return { kind: "bouquet-gone", offer };
    if (current.price !== intent.bouquet.price) {
      return { kind: "price-changed", bouquet: current, offer };
    }
    return { checkout: offer.checkout, bouquet: current };
  }

  private isStale(checkout: Checkout): boolean {
    const age = this.now() - checkout.issuedAt.getTime();
    return age > this.options.checkoutTtlMs - this.options.checkoutSafetyMarginMs;
  }

  /**
   * The failure codes are not documented, so a refusal is taken for a token problem when it
   * says so, or when the token is old enough to have expired on the provider's clock.
   */
  private looksLikeTokenProblem(
    refusal: { code: string; message: string | undefined },
    checkout: Checkout,
  ): boolean {
    const text = `${refusal.code} ${refusal.message ?? ""}`;
    if (/checkout|token|expire/i.test(text)) return true;
    return this.now() - checkout.issuedAt.getTime() > this.options.checkoutTtlMs / 2;
  }

  private settleDone(entry: JournalEntry, transaction: Transaction): Promise<JournalEntry> {
    const txn = {
      txnId: transaction.txnId,
      amount: transaction.amount,
      date: transaction.date.getTime(),
    };
    return this.journal.settle(entry, "done", { transaction: txn }, this.now());
  }

  private async fail(
    entry: JournalEntry,
    kind: FailureKind,
    code?: string,
  ): Promise<PurchaseOutcome> {
    return settled(
      await this.journal.settle(entry, "failed", { failure: { kind, code } }, this.now()),
    );
  }

  private newEntry(
    intent: PurchaseIntent,
    checkout: Checkout,
    bouquet: Bouquet,
    attempt: number,
  ): JournalEntry {
    const now = this.now();
    return {
      checkoutId: checkout.id,
      intentId: intent.intentId,
      // udf1: traceable to the buyer, unique per attempt, at most 30 characters.
      reference: `tg${intent.buyer}-${now.toString(36)}${attempt}`,
      buyer: intent.buyer,
      language: intent.language,
      cuid: intent.customer.cuid,
      customerName: `${intent.customer.firstName} ${intent.customer.lastName}`.trim(),
      service: intent.connection.service,
      connectionId: intent.connection.id,
      bouquetCode: bouquet.code,
      bouquetName: bouquet.displayName,
      period: bouquet.period,
      amount: bouquet.price,
      checkoutIssuedAt: checkout.issuedAt.getTime(),
      createdAt: now,
      updatedAt: now,
      state: "pending",
    };
  }
}
