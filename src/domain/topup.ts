// Where a top-up happens. Every rule that keeps money safe lives in this file:
// at most once per user intent, never lost, always verified with txn-status.
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { errorFields, type Logger } from "../logger.js";
import type { ProviderApi } from "../provider/client.js";
import {
  ProviderError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  TopupOutcomeUnknownError,
} from "../provider/errors.js";
import type { Journal, JournalEntry } from "./journal.js";
import { Lease } from "./lease.js";
import type {
  Bouquet,
  Checkout,
  Connection,
  Customer,
  PackageOffer,
  Transaction,
} from "./model.js";
import type { RedisKeys } from "./redis-keys.js";

export interface PurchaseIntent {
  /** Unique per confirmed selection: double taps and replays carry the same id. */
  intentId: string;
  userId: number;
  chatId: number;
  language: string;
  customer: Customer;
  connection: Connection;
  /** The bouquet and price the user agreed to. */
  bouquet: Bouquet;
  checkout: Checkout;
}

export type PurchaseOutcome =
  | { kind: "done"; entry: JournalEntry }
  | { kind: "not-charged"; entry: JournalEntry }
  /** The provider could not be asked in time; the journal stays pending for reconciliation. */
  | { kind: "still-checking"; entry: JournalEntry }
  | { kind: "rejected"; code: string }
  | { kind: "price-changed"; bouquet: Bouquet; offer: PackageOffer }
  | { kind: "bouquet-gone"; offer: PackageOffer }
  | { kind: "unavailable" }
  | { kind: "unauthorized" }
  /** Another purchase is in flight in this chat. */
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

type Lookup = { found: Transaction } | { found: null; known: boolean };

export class TopupService {
  constructor(
    private readonly provider: ProviderApi,
    private readonly journal: Journal,
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly options: TopupServiceOptions,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async purchase(intent: PurchaseIntent, hooks: PurchaseHooks = {}): Promise<PurchaseOutcome> {
    const claimKey = this.keys.intent(intent.intentId);
    const claimed = await this.redis.set(claimKey, "1", "EX", 86_400, "NX");
    if (claimed !== "OK") return { kind: "duplicate" };
    const guard = await Lease.acquire(
      this.redis,
      this.keys.purchaseInFlight(intent.chatId),
      this.options.lockTtlMs,
    );
    if (!guard) {
      await this.redis.del(claimKey);
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
    const lease = await Lease.acquire(
      this.redis,
      this.keys.checkoutLock(checkoutId),
      this.options.lockTtlMs,
    );
    if (!lease) return null;
    try {
      const entry = await this.journal.get(checkoutId);
      if (entry?.state !== "pending") return null;
      const lookup = await this.lookup(checkoutId);
      if (lookup.found) return this.settleDone(entry, lookup.found);
      // Once the token has expired the provider can no longer execute it: nothing happened.
      const expired =
        this.now() - entry.checkoutIssuedAt >
        this.options.checkoutTtlMs + this.options.checkoutSafetyMarginMs;
      if (lookup.known && expired) {
        return this.journal.settle(entry, "not-charged", {}, this.now());
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
    const lease = await Lease.acquire(
      this.redis,
      this.keys.checkoutLock(checkout.id),
      this.options.lockTtlMs,
    );
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
        this.logger.warn({ checkoutId: entry.checkoutId }, "top-up succeeded but txn-status lags");
      }
      return { kind: "done", entry: await this.settleDone(entry, verified.found ?? transaction) };
    } catch (error) {
      if (error instanceof ProviderRejectedError) {
        if (attempt === 1 && this.looksLikeTokenProblem(error, checkout)) {
          return await this.replaceRefusedToken(intent, entry, error, hooks);
        }
        await this.fail(entry, "rejected", error.code);
        return { kind: "rejected", code: error.code };
      }
      if (error instanceof ProviderUnauthorizedError) {
        await this.fail(entry, "unauthorized");
        return { kind: "unauthorized" };
      }
      if (error instanceof ProviderError && !(error instanceof TopupOutcomeUnknownError)) {
        // Unavailable before anything was sent (connection refused): nothing happened.
        await this.fail(entry, "unavailable");
        return { kind: "unavailable" };
      }
      this.logger.warn(
        { checkoutId: entry.checkoutId, ...errorFields(error) },
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
    error: ProviderRejectedError,
    hooks: PurchaseHooks,
  ): Promise<PurchaseOutcome> {
    const lookup = await this.lookup(entry.checkoutId);
    if (lookup.found) return { kind: "done", entry: await this.settleDone(entry, lookup.found) };
    if (!lookup.known) {
      await hooks.onChecking?.();
      return this.pollUntilKnown(entry);
    }
    await this.fail(entry, "rejected", error.code);
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
      if (lookup.found) return { kind: "done", entry: await this.settleDone(entry, lookup.found) };
      known = lookup.known;
      if (this.now() + delay > deadline) break;
      await sleep(delay);
      delay = Math.min(delay * 2, this.options.verifyMaxDelayMs);
    }
    if (!known) return { kind: "still-checking", entry };
    const settled = await this.journal.settle(entry, "not-charged", {}, this.now());
    return { kind: "not-charged", entry: settled };
  }

  /** txn-status: found, known to be absent, or unknown (provider unavailable). */
  private async lookup(checkoutId: string): Promise<Lookup> {
    try {
      return { found: await this.provider.txnStatus(checkoutId) };
    } catch (error) {
      // The spec defines no "not found" code: any refusal means the provider has no such
      // transaction; anything else means we could not find out.
      return { found: null, known: error instanceof ProviderRejectedError };
    }
  }

  private async freshOffer(
    intent: PurchaseIntent,
    bouquet: Bouquet,
  ): Promise<{ checkout: Checkout; bouquet: Bouquet } | PurchaseOutcome> {
    let offer: PackageOffer;
    try {
      offer = await this.provider.getPackages(intent.customer.cuid, intent.connection);
    } catch (error) {
      return {
        kind: error instanceof ProviderUnauthorizedError ? "unauthorized" : "unavailable",
      };
    }
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
  private looksLikeTokenProblem(error: ProviderRejectedError, checkout: Checkout): boolean {
    const text = `${error.code} ${error.providerMessage ?? ""}`;
    if (/checkout|token|expire/i.test(text)) return true;
    return this.now() - checkout.issuedAt.getTime() > this.options.checkoutTtlMs / 2;
  }

  private settleDone(entry: JournalEntry, transaction: Transaction): Promise<JournalEntry> {
    return this.journal.settle(
      entry,
      "done",
      {
        transaction: {
          txnId: transaction.txnId,
          amount: transaction.amount,
          date: transaction.date.getTime(),
        },
      },
      this.now(),
    );
  }

  private async fail(entry: JournalEntry, kind: string, code?: string): Promise<void> {
    await this.journal.settle(entry, "failed", { failure: { kind, code } }, this.now());
    // The live flow tells the user at once; no later delivery is needed.
    await this.journal.delivered(entry.checkoutId);
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
      // udf1: traceable to the chat, unique per attempt, at most 30 characters.
      reference: `tg${intent.chatId}-${now.toString(36)}${attempt}`,
      userId: intent.userId,
      chatId: intent.chatId,
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
