// Where a top-up happens. Every rule that keeps money safe lives in this file: at most once
// per user intent, never lost, always verified with txn-status. The purchase record
// (purchase.ts) is written before every external effect; its outcome is told by outcomes.ts.
import { setTimeout as sleep } from "node:timers/promises";
import type {
  Bouquet,
  Checkout,
  Connection,
  Customer,
  PackageOffer,
  Transaction,
} from "./model.js";
import { sameAmount } from "./money.js";
import type { OutcomeTeller } from "./outcomes.js";
import type { Clock, Log, ProviderPort } from "./ports.js";
import { ask, type TransactionState, topupFailure, transactionState } from "./provider-answers.js";
import {
  BuyerBusyError,
  type Claim,
  type Creation,
  isOpen,
  type NotChargedReason,
  type Purchase,
  StaleWriteError,
} from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";
import { advance } from "./purchase-machine.js";

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
  /** The buyer's message saying the payment is under way (opaque): the outcome replaces it. */
  statusMessage?: string;
  /** The buyer's menu offering other ways to pay (opaque): see Purchase.menuMessage. */
  menuMessage?: string;
  /** Started from an expiry reminder's Renew button. */
  fromReminder?: true;
  /** The buyer proved the customer theirs (see Purchase.proved): shown in full, not masked. */
  proved?: true;
}

export type PurchaseOutcome =
  /** Charged, not charged or unknown, as recorded, and told through outcomes.ts. */
  | { kind: "settled"; purchase: Purchase }
  /** The price or name changed, or the bouquet is gone: ask again with this listing. */
  | { kind: "offer-changed"; purchase: Purchase; offer: PackageOffer; bouquet: Bouquet | null }
  /** Another purchase of this buyer is in flight. */
  | { kind: "busy" }
  /** This very intent was taken already (double tap, duplicate update, replay). */
  | { kind: "duplicate" }
  /** The purchase could not be recorded at all: nothing was sent. */
  | { kind: "store-unavailable" };

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
  /** How long after a failed check an unknown purchase is checked again, at most. */
  recheckMaxMs: number;
  /**
   * A paid purchase whose top-up could not be sent (provider down, top-ups paused) is tried
   * again until this long after its payment, then owed back.
   */
  paidRetryWindowMs: number;
}

/** The top-up did not leave: for a paid purchase, worth another try while its window lasts. */
const RETRYABLE: ReadonlySet<NotChargedReason> = new Set(["unavailable", "paused", "interrupted"]);

/** A paid purchase whose buyer has another purchase in flight is tried again after this. */
const BUSY_RETRY_MS = 5_000;

/** How often a claim is decided anew after losing a race before it is left to the next pass. */
const LOST_RACE_RETRIES = 3;

type Lookup = { found: TransactionState } | { found: null; known: boolean };

/** What a step learned about the top-up; `settle` turns it into the machine's event. */
type Finding =
  | { charged: NonNullable<Purchase["transaction"]> }
  | { notCharged: NotChargedReason }
  | "unknown";

export class TopupService {
  private readonly windingDown = new AbortController();

  constructor(
    private readonly provider: ProviderPort,
    private readonly book: PurchaseBook,
    private readonly teller: OutcomeTeller,
    private readonly options: TopupServiceOptions,
    private readonly log: Log,
    private readonly now: Clock = Date.now,
  ) {}

  /**
   * Shutting down: purchases stop waiting for an answer and record what they know, so that
   * another instance (or the next start) finishes them at once. Nothing is sent twice.
   */
  windDown(): void {
    this.windingDown.abort();
  }

  async purchase(intent: PurchaseIntent, hooks: PurchaseHooks = {}): Promise<PurchaseOutcome> {
    const purchase = this.newPurchase(intent);
    let creation: Creation;
    try {
      creation = await this.book.store.create(purchase, this.options.lockTtlMs);
    } catch (error) {
      this.log.warn({ reason: reasonOf(error), purchaseId: purchase.id }, "purchase not recorded");
      return { kind: "store-unavailable" };
    }
    if (creation.kind !== "created") return creation;
    const sent = { before: false };
    try {
      const outcome = await this.attempt(purchase, intent.checkout, 1, hooks, sent);
      // Told under the lease, so that reconciliation does not tell it as well.
      if (outcome.kind === "settled") await this.teller.tell(outcome.purchase, true);
      return outcome;
    } catch (error) {
      if (error instanceof StaleWriteError) {
        // Given back first: what it now says is told by whoever holds it, or under a hold of
        // its own, never skipped as held by this very purchase() call.
        await creation.lease.release().catch(() => undefined);
        return settled(await this.afterLostRace(purchase));
      }
      if (sent.before) throw error;
      // Nothing left for the provider (the store failed): not charged, and the buyer is told.
      this.log.warn({ err: error, purchaseId: purchase.id }, "purchase stopped before sending");
      await this.teller.tell(await this.settle(purchase, { notCharged: "interrupted" }), true);
      return { kind: "settled", purchase };
    } finally {
      await creation.lease.release().catch(() => undefined);
    }
  }

  /**
   * Resolves an open purchase claimed by reconciliation (its holder died or gave up, or its
   * next check came), tells what is new, and gives the claim back. A step that lost a race is
   * decided anew from the row as it now is.
   */
  async resolve(claim: Claim): Promise<void> {
    try {
      for (let tries = 1; ; tries++) {
        const purchase = await this.book.get(claim.id);
        if (!purchase) return;
        try {
          await this.teller.tell(await this.resolved(purchase), true);
          return;
        } catch (error) {
          if (!(error instanceof StaleWriteError) || tries >= LOST_RACE_RETRIES) throw error;
          this.log.warn({ purchaseId: claim.id }, "lost a race on a purchase: read it again");
        }
      }
    } finally {
      await claim.lease.release().catch(() => undefined);
    }
  }

  /**
   * Before any refund of a payment on this purchase is issued (its own payment's, or a stray
   * one's found after it ended or was paid): "unknown" while a top-up for it is under way or its
   * outcome unknown (paid, token taken, requested, unknown: nothing is refunded then, whoever's
   * money it is); owed back, txn-status is asked once more for every checkout token it took. A
   * top-up found then is recorded as charged (and told); "unknown" when the provider could not
   * say, and no refund may be issued yet.
   */
  async lastLook(purchaseId: string): Promise<"owed" | "charged" | "unknown"> {
    const purchase = await this.book.get(purchaseId);
    if (purchase && isOpen(purchase) && purchase.phase !== "awaiting-payment") {
      this.log.info(
        { purchaseId, phase: purchase.phase },
        "a top-up of the purchase is under way or unknown: no refund yet",
      );
      return "unknown";
    }
    if (purchase?.phase !== "refund-due") return "owed";
    const look = await this.lookupEvery(purchase);
    if (!look.found) return look.known ? "owed" : "unknown";
    if (look.found.state !== "charged") return look.found.state === "failed" ? "owed" : "unknown";
    this.log.warn({ purchaseId }, "the last look before a refund found the top-up: charged");
    await this.teller.tell(
      await this.settle(purchase, { charged: this.receiptOf(purchase, look.found.transaction) }),
    );
    return "charged";
  }

  /** Someone else wrote the purchase meanwhile: what it now says is told, and left to its holder. */
  private async afterLostRace(purchase: Purchase): Promise<Purchase> {
    this.log.warn({ purchaseId: purchase.id }, "lost a race on a purchase: left to its holder");
    const fresh = await this.book.get(purchase.id).catch(() => null);
    if (fresh) await this.teller.tell(fresh).catch(() => undefined);
    return fresh ?? purchase;
  }

  private async resolved(purchase: Purchase): Promise<Purchase> {
    if (
      purchase.payment?.charge &&
      (purchase.phase === "paid" || purchase.phase === "token-taken")
    ) {
      // Paid, and the request never left ("requested" is written before it does).
      return this.fulfil(purchase);
    }
    if (purchase.phase === "created" || purchase.phase === "token-taken") {
      // The record is written before the request leaves: this one never left.
      return this.settle(purchase, { notCharged: "interrupted" });
    }
    if (purchase.phase !== "requested" && purchase.phase !== "unknown") return purchase;
    const lookup = await this.lookup(purchase);
    if (lookup.found) return this.settleFound(purchase, lookup.found);
    if (lookup.known && this.tokenExpired(purchase)) {
      return this.settle(purchase, { notCharged: "verified" });
    }
    return this.stillUnknown(purchase, lookup.known);
  }

  /**
   * The top-up of a paid purchase, at the price paid, with a fresh checkout token (the
   * listing's is usually too old after a payment); an offer that changed is owed back.
   */
  private async fulfil(purchase: Purchase): Promise<Purchase> {
    const fresh = await this.freshOffer(purchase);
    let outcome: PurchaseOutcome;
    try {
      outcome =
        "kind" in fresh
          ? fresh
          : await this.attempt(purchase, fresh.checkout, 1, {}, { before: false });
    } catch (error) {
      if (!(error instanceof BuyerBusyError)) throw error;
      return this.waitTurn(purchase);
    }
    return "purchase" in outcome ? outcome.purchase : purchase;
  }

  /**
   * Another purchase of the buyer is in flight (two paid at once: a payment found late beside
   * a new purchase): nothing was sent; this one stays paid and is tried again shortly, never
   * owed back for it.
   */
  private async waitTurn(purchase: Purchase): Promise<Purchase> {
    this.log.info({ purchaseId: purchase.id }, "another purchase of the buyer is in flight: waits");
    const paid = (await this.book.get(purchase.id)) ?? purchase;
    await this.book.store.postpone(paid, this.now() + BUSY_RETRY_MS);
    return paid;
  }

  private async attempt(
    purchase: Purchase,
    offered: Checkout,
    attempt: 1 | 2,
    hooks: PurchaseHooks,
    sent: { before: boolean },
  ): Promise<PurchaseOutcome> {
    let checkout = offered;
    if (this.isStale(checkout)) {
      const fresh = await this.freshOffer(purchase);
      if ("kind" in fresh) return fresh;
      checkout = fresh.checkout;
    }
    await this.takeToken(purchase, checkout, attempt);
    advance(purchase, { type: "send" }, this.now());
    await this.book.commit(purchase);
    sent.before = true;
    try {
      const transaction = await this.provider.topup(
        {
          cuid: purchase.customer.cuid,
          service: purchase.connection.service,
          connectionId: purchase.connection.id,
          checkoutId: checkout.id,
          bouquetCode: purchase.bouquet.code,
          amount: purchase.bouquet.price,
          reference: purchase.reference ?? undefined,
          // A shutdown's hand-over stops waiting: the outcome is then unknown and looked up.
        },
        this.windingDown.signal,
      );
      const verified = await this.lookup(purchase);
      if (!verified.found) {
        this.log.warn({ purchaseId: purchase.id }, "top-up succeeded but txn-status lags");
      }
      return settled(
        await this.settleFound(purchase, verified.found ?? transactionState(transaction)),
      );
    } catch (error) {
      const failure = topupFailure(error);
      switch (failure.kind) {
        case "refused":
          return await this.afterRefusal(purchase, failure.code, hooks, sent);
        case "unauthorized":
          return settled(await this.settle(purchase, { notCharged: "paused" }));
        case "not-sent":
          return settled(await this.settle(purchase, { notCharged: "unavailable" }));
        case "unknown":
          this.log.warn({ purchaseId: purchase.id, err: error }, "top-up outcome unknown");
          await hooks.onChecking?.();
          return settled(await this.pollUntilKnown(purchase));
      }
    }
  }

  /**
   * The provider's own refusal (its envelope's `success: false`), whatever its code: make sure
   * nothing happened, then try once more with a fresh token (asking again only if the bouquet
   * changed). A second refusal is a decline. A gateway's 4xx is no refusal: it is unknown.
   */
  private async afterRefusal(
    purchase: Purchase,
    code: string,
    hooks: PurchaseHooks,
    sent: { before: boolean },
  ): Promise<PurchaseOutcome> {
    purchase.refusal = { code };
    const lookup = await this.lookup(purchase);
    if (lookup.found) return settled(await this.settleFound(purchase, lookup.found));
    if (!lookup.known) {
      await hooks.onChecking?.();
      return settled(await this.pollUntilKnown(purchase));
    }
    if (purchase.attempt === 2) {
      return settled(await this.settle(purchase, { notCharged: "declined" }));
    }
    const fresh = await this.freshOffer(purchase);
    if ("kind" in fresh) return fresh;
    sent.before = false;
    return this.attempt(purchase, fresh.checkout, 2, hooks, sent);
  }

  private async pollUntilKnown(purchase: Purchase): Promise<Purchase> {
    const deadline = this.now() + this.options.verifyWindowMs;
    let delay = this.options.verifyFirstDelayMs;
    let known = false;
    const stop = this.windingDown.signal;
    for (;;) {
      const lookup = await this.lookup(purchase);
      if (lookup.found) return this.settleFound(purchase, lookup.found);
      known = lookup.known;
      if (this.now() + delay > deadline || stop.aborted) break;
      await sleep(delay, undefined, { signal: stop }).catch(() => undefined);
      delay = Math.min(delay * 2, this.options.verifyMaxDelayMs);
    }
    if (known && this.tokenExpired(purchase)) {
      return this.settle(purchase, { notCharged: "verified" });
    }
    return this.stillUnknown(purchase, known);
  }

  /**
   * Unknown for now: checked again soon, or once the token has expired when the provider
   * says it has no such transaction (until then it could still happen).
   */
  private stillUnknown(purchase: Purchase, absent: boolean): Promise<Purchase> {
    const expiresAt = (purchase.checkout?.issuedAt ?? 0) + this.tokenLifetimeMs();
    // Handed over at once by a process that is shutting down.
    const recheck = this.windingDown.signal.aborted ? 0 : this.options.recheckMaxMs;
    const dueAt = absent ? Math.max(expiresAt, this.now() + 1_000) : this.now() + recheck;
    return this.settle(purchase, "unknown", dueAt);
  }

  /** txn-status for the current attempt: found, known to be absent, or unknown. */
  private async lookup(purchase: Purchase): Promise<Lookup> {
    const checkoutId = purchase.checkout?.id;
    if (!checkoutId) return { found: null, known: true };
    return this.lookupOne(checkoutId);
  }

  private async lookupOne(checkoutId: string): Promise<Lookup> {
    const answer = await ask(() => this.provider.txnStatus(checkoutId), this.log, "txn-status");
    if (answer.ok) return { found: transactionState(answer.value) };
    return { found: null, known: answer.failure === "not-found" };
  }

  /**
   * txn-status for every checkout token the purchase took: what "it did not happen" rests on.
   * A charge found on any wins; then one still pending; known absent only when each says so.
   */
  private async lookupEvery(purchase: Purchase): Promise<Lookup> {
    let checkouts: string[];
    try {
      checkouts = await this.book.store.checkouts(purchase.id);
    } catch {
      return { found: null, known: false };
    }
    if (purchase.checkout && !checkouts.includes(purchase.checkout.id)) {
      checkouts.push(purchase.checkout.id);
    }
    let known = true;
    let pending: Lookup | null = null;
    for (const checkoutId of checkouts) {
      const lookup = await this.lookupOne(checkoutId);
      if (lookup.found?.state === "charged") return lookup;
      if (lookup.found?.state === "pending") pending = lookup;
      if (!lookup.found && !lookup.known) known = false;
    }
    return pending ?? { found: null, known };
  }

  private settleFound(purchase: Purchase, found: TransactionState): Promise<Purchase> {
    if (found.state === "failed") return this.settle(purchase, { notCharged: "declined" });
    if (found.state === "pending") return this.stillUnknown(purchase, false);
    return this.settle(purchase, { charged: this.receiptOf(purchase, found.transaction) });
  }

  /** What the receipt shows: the provider's amount when it stated one, else the price sent. */
  private receiptOf(
    purchase: Purchase,
    transaction: Transaction,
  ): NonNullable<Purchase["transaction"]> {
    return {
      txnId: transaction.txnId,
      amount: transaction.amount ?? purchase.bouquet.price,
      date: transaction.date,
    };
  }

  /** A fresh listing and token for the same bouquet, or the reason there is none. */
  private async freshOffer(purchase: Purchase): Promise<{ checkout: Checkout } | PurchaseOutcome> {
    const answer = await ask(
      () =>
        this.provider.getPackages(purchase.customer.cuid, {
          service: purchase.connection.service,
          id: purchase.connection.id,
        }),
      this.log,
      "package listing",
    );
    if (!answer.ok) {
      const reason = answer.failure === "unauthorized" ? "paused" : "unavailable";
      return settled(await this.settle(purchase, { notCharged: reason }));
    }
    const offer = answer.value;
    const current = offer.bouquets.find((candidate) => candidate.code === purchase.bouquet.code);
    const unchanged =
      current !== undefined &&
      current.name === purchase.bouquet.name &&
      sameAmount(current.price, purchase.bouquet.price);
    if (!unchanged) {
      // The new question is the telling: nothing else is said about this purchase (a paid
      // one is told that its payment is owed back).
      if (!purchase.payment) purchase.told = "not-charged";
      await this.settle(purchase, { notCharged: "offer-changed" });
      return { kind: "offer-changed", purchase, offer, bouquet: current ?? null };
    }
    return { checkout: offer.checkout };
  }

  /** Binds the token to this attempt (the ledger keeps the earlier ones); a token bound elsewhere is refused. */
  private async takeToken(purchase: Purchase, checkout: Checkout, attempt: 1 | 2): Promise<void> {
    advance(
      purchase,
      {
        type: "take-token",
        checkout: { id: checkout.id, issuedAt: checkout.issuedAt.getTime() },
        // udf1: traceable to the buyer, unique per attempt, at most 30 characters.
        reference: `tg${purchase.buyer}-${this.now().toString(36)}${attempt}`,
        attempt,
      },
      this.now(),
    );
    if (!(await this.book.store.takeCheckout(purchase))) {
      throw new Error("the checkout token is bound to another purchase");
    }
  }

  /**
   * Records what was learned, as the machine allows: paid money is never "not charged" (tried
   * again while its window lasts, else owed back after a last look at every token).
   */
  private async settle(purchase: Purchase, finding: Finding, dueAt?: number): Promise<Purchase> {
    const now = this.now();
    if (finding === "unknown") {
      advance(purchase, { type: "lose-track" }, now);
    } else if ("charged" in finding) {
      advance(purchase, { type: "find", transaction: finding.charged }, now);
    } else if (purchase.payment?.charge === undefined) {
      const found = finding.notCharged === "verified" ? await this.lookedAgain(purchase) : null;
      if (found) return found;
      advance(purchase, { type: "refuse", reason: finding.notCharged }, now);
    } else {
      const { at } = purchase.payment.charge;
      const reason = finding.notCharged;
      if (RETRYABLE.has(reason) && now < at + this.options.paidRetryWindowMs) {
        advance(purchase, { type: "retry-later", reason }, now);
        await this.book.record(purchase, now + this.options.recheckMaxMs);
        return purchase;
      }
      // The last look before the payment is owed back.
      const found = await this.lookedAgain(purchase);
      if (found) return found;
      advance(purchase, { type: "owe", reason }, now);
    }
    await this.book.record(purchase, dueAt);
    return purchase;
  }

  /**
   * The last look at every token before "it did not happen": a top-up found then is charged,
   * and a provider that cannot tell keeps it unknown; null when each token is known absent.
   */
  private async lookedAgain(purchase: Purchase): Promise<Purchase | null> {
    const look = await this.lookupEvery(purchase);
    if (look.found?.state === "charged") {
      this.log.warn({ purchaseId: purchase.id }, "a top-up judged absent was found: charged");
      return this.settleFound(purchase, look.found);
    }
    return look.found || !look.known ? this.stillUnknown(purchase, false) : null;
  }

  private tokenLifetimeMs(): number {
    return this.options.checkoutTtlMs + this.options.checkoutSafetyMarginMs;
  }

  /** Once its token has expired, the provider can no longer execute an attempt. */
  private tokenExpired(purchase: Purchase): boolean {
    return this.now() - (purchase.checkout?.issuedAt ?? 0) > this.tokenLifetimeMs();
  }

  private isStale(checkout: Checkout): boolean {
    const age = this.now() - checkout.issuedAt.getTime();
    return age > this.options.checkoutTtlMs - this.options.checkoutSafetyMarginMs;
  }

  newPurchase(intent: PurchaseIntent): Purchase {
    const now = this.now();
    const { bouquet, customer, connection } = intent;
    return {
      id: intent.intentId,
      version: 0,
      buyer: intent.buyer,
      language: intent.language,
      customer: { cuid: customer.cuid, name: `${customer.firstName} ${customer.lastName}`.trim() },
      connection: { service: connection.service, id: connection.id },
      bouquet: { code: bouquet.code, name: bouquet.name, price: bouquet.price },
      attempt: 1,
      checkout: null,
      reference: null,
      phase: "created",
      told: null,
      transaction: null,
      refusal: null,
      reason: null,
      ...(intent.statusMessage !== undefined && { statusMessage: intent.statusMessage }),
      ...(intent.menuMessage !== undefined && { menuMessage: intent.menuMessage }),
      ...(intent.fromReminder && { fromReminder: true as const }),
      ...(intent.proved && { proved: true as const }),
      createdAt: now,
      updatedAt: now,
    };
  }
}

const settled = (purchase: Purchase): PurchaseOutcome => ({ kind: "settled", purchase });

/** One line: a store that is away says so without a stack. */
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
