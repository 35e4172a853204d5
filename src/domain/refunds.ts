// Where a refund is issued. A payment is owed back only when its top-up certainly did not
// happen (topup.ts decides: refused twice, offer changed, bouquet gone, paused past the
// window) or when it paid for nothing (payment-service.ts). Where the payment's own method
// refunds through its API (Khalti), the system is asked here, each call counted in the ledger
// before it leaves, retried with backoff and, after a few failures, left to a person.
// Telegram's Bot API cannot refund a card payment, so a person refunds it through the payment provider and records it here: marked
// once (the ledger refuses a second time), with who and when, and the buyer is told.
import { setTimeout as sleep } from "node:timers/promises";
import type { OutcomeTeller } from "./outcomes.js";
import type { PaymentLedger, PaymentSystem, PaymentSystems, Refund } from "./payment.js";
import type { Log } from "./ports.js";
import type { PaymentMethod, Purchase } from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";
import { TaskGroup } from "./task-group.js";

/** What operators need to refund a payment by hand. */
export type RefundAlert = Pick<
  Refund,
  "purchaseId" | "buyer" | "method" | "currency" | "minor" | "chargeId" | "providerChargeId"
>;

export interface RefundChannel {
  /**
   * Every admin and support group: a refund is due, or a paid top-up's outcome is still
   * unknown after the verify window (nothing is refunded until txn-status tells).
   */
  alertOperators(refund: RefundAlert, about: RefundAlertKind): Promise<void>;
  /** The buyer of a payment that paid for nothing: it will be refunded, or it was. */
  tellBuyer(refund: Refund, state: "owed" | "refunded"): Promise<void>;
}

/** What operators are alerted about: a refund to make by hand, or an outcome to watch. */
export type RefundAlertKind =
  | "refund-due"
  | "refund-failed"
  | "outcome-unknown"
  /** A payment that pays for nothing (a wrong amount, a late one), refunded by the system's API. */
  | "stray-refunding"
  /** The system says an offer's payment went back outside the bot (eSewa's FULL_REFUND). */
  | "refunded-outside";

/**
 * The last look before a refund (TopupService.lastLook): txn-status for every token the
 * purchase took. "charged": the top-up happened after all (recorded and told), nothing is
 * refunded; "unknown": the provider could not say, so nothing is refunded yet.
 */
export type LastLook = (purchaseId: string) => Promise<"owed" | "charged" | "unknown">;

/**
 * Refunds through the API of the systems that have one (`refund`), tried this many times,
 * first after `retryMs`; the other systems' refunds are a person's.
 */
export interface AutomaticRefunds {
  systems: PaymentSystems;
  retryMs: number;
  maxAttempts: number;
}

export class RefundDesk {
  private readonly stopping = new AbortController();
  /** Refunds being issued through the system's API. */
  private readonly running: TaskGroup;

  constructor(
    private readonly book: PurchaseBook,
    private readonly ledger: PaymentLedger,
    private readonly teller: OutcomeTeller,
    private readonly channel: RefundChannel,
    private readonly lastLook: LastLook,
    private readonly log: Log,
    private readonly automatic?: AutomaticRefunds,
  ) {
    this.running = new TaskGroup((error) => this.log.warn({ err: error }, "refund not issued yet"));
  }

  /** A payment that pays for nothing (recorded as owed by the ledger): say so to all. */
  async owe(refund: Refund): Promise<void> {
    this.log.warn({ purchaseId: refund.purchaseId, paymentId: refund.paymentId }, "refund due");
    await this.quietly(this.channel.tellBuyer(refund, "owed"));
    const automatic = this.refunderOf(refund.method) !== undefined;
    await this.quietly(
      this.channel.alertOperators(refund, automatic ? "stray-refunding" : "refund-due"),
    );
    if (automatic) this.running.track(this.issue(refund));
  }

  /** The system that refunds this method's payments through its API; undefined: a person. */
  private refunderOf(method: PaymentMethod): PaymentSystem | undefined {
    const system = this.automatic?.systems.get(method);
    return system?.refund ? system : undefined;
  }

  /** A purchase's refund-due was told to its buyer (once): refunded, or operators alerted. */
  async purchaseOwed(purchase: Purchase): Promise<void> {
    const method = purchase.payment?.method;
    if (!method || !this.refunderOf(method)) return this.alertAbout(purchase, "refund-due");
    const refund = await this.ledger.refundDueFor(purchase.id);
    if (refund) this.running.track(this.issue(refund));
  }

  /** At start: refunds by API that a stopped process left unfinished are taken up again. */
  async resume(): Promise<void> {
    const automatic = this.automatic;
    if (!automatic) return;
    for (const refund of await this.ledger.refundsDue(100)) {
      const mine = this.refunderOf(refund.method) !== undefined;
      if (mine && refund.attempts < automatic.maxAttempts) this.running.track(this.issue(refund));
    }
  }

  /** Stops waiting between tries (shutdown); what is still owed stays due in the ledger. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running.drain();
  }

  /**
   * Each call is counted in the ledger before it leaves, so that a refund is never asked for
   * more times than allowed, across restarts; one that fails is tried again after a growing
   * pause; after the last try, or an answer that says the system will not, a person takes over.
   */
  private async issue(refund: Refund): Promise<void> {
    const automatic = this.automatic;
    const system = this.refunderOf(refund.method);
    const refundBy = system?.refund?.bind(system);
    if (!automatic || !system || !refundBy) return;
    let pause = automatic.retryMs;
    for (; ; pause = Math.min(pause * 2, automatic.retryMs * 32)) {
      const look = refund.purchaseId ? await this.lookLast(refund.purchaseId) : "owed";
      if (look === "charged") return;
      if (look === "unknown") {
        if (!(await this.pause(pause))) return;
        continue;
      }
      const attempt = await this.ledger.countRefundAttempt(refund.paymentId);
      if (attempt === null) return;
      if (attempt > automatic.maxAttempts) return this.handOver(refund);
      try {
        const answer = await refundBy(refund);
        if (answer === "refused") return this.handOver(refund);
        await this.markRefunded(refund.chargeId, system.method, null);
        return;
      } catch (error) {
        this.log.warn({ err: error, paymentId: refund.paymentId, attempt }, "refund failed");
        if (attempt >= automatic.maxAttempts) return this.handOver(refund);
      }
      if (!(await this.pause(pause))) return;
    }
  }

  /** A failing last look is "unknown": the refund waits for the provider to answer. */
  private lookLast(purchaseId: string): ReturnType<LastLook> {
    return this.lastLook(purchaseId).catch((error: unknown) => {
      this.log.warn({ err: error, purchaseId }, "the last look before a refund failed");
      return "unknown" as const;
    });
  }

  /** False when stopping: what is still owed stays due in the ledger. */
  private async pause(ms: number): Promise<boolean> {
    await sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    return !this.stopping.signal.aborted;
  }

  private async handOver(refund: Refund): Promise<void> {
    this.log.error({ paymentId: refund.paymentId }, "refund left to a person");
    await this.quietly(this.channel.alertOperators(refund, "refund-failed"));
  }

  /**
   * A paid purchase still unknown after the verify window was told "still checking" (once):
   * nothing is refunded while the top-up may have happened, so people are told to watch it.
   */
  outcomeUnknown(purchase: Purchase): Promise<void> {
    return this.alertAbout(purchase, "outcome-unknown");
  }

  /**
   * The payment system says the payment of an offer still awaited went back outside the bot
   * (eSewa's FULL_REFUND or PARTIAL_REFUND): nothing was topped up, and people are told to see
   * that the buyer was paid back in full.
   */
  async refundedOutside(purchase: Purchase): Promise<void> {
    const asked = purchase.payment;
    if (!asked) return;
    this.log.warn({ purchaseId: purchase.id }, "payment refunded outside the bot");
    await this.quietly(
      this.channel.alertOperators(
        {
          purchaseId: purchase.id,
          buyer: purchase.buyer,
          method: asked.method,
          currency: asked.currency,
          minor: asked.minor,
          chargeId: asked.offer ?? "—",
          providerChargeId: null,
        },
        "refunded-outside",
      ),
    );
  }

  private async alertAbout(purchase: Purchase, about: RefundAlertKind) {
    const charge = purchase.payment?.charge;
    if (!purchase.payment || !charge) return;
    this.log.warn({ purchaseId: purchase.id, reason: purchase.reason }, about);
    await this.quietly(
      this.channel.alertOperators(
        {
          purchaseId: purchase.id,
          buyer: purchase.buyer,
          method: purchase.payment.method,
          currency: purchase.payment.currency,
          minor: purchase.payment.minor,
          chargeId: charge.id,
          providerChargeId: charge.providerId,
        },
        about,
      ),
    );
  }

  /** Refunds still owed, oldest first. */
  due(count: number): Promise<Refund[]> {
    return this.ledger.refundsDue(count);
  }

  /**
   * Someone refunded it through the payment provider: recorded once, and the buyer told.
   * Null when nothing is owed by that purchase or charge id (unknown, or marked before).
   */
  async markRefunded(key: string, by: string, note: string | null): Promise<Refund | null> {
    const refund = await this.ledger.markRefunded(key, by, note);
    if (!refund) return null;
    this.log.info({ purchaseId: refund.purchaseId, paymentId: refund.paymentId }, "refunded");
    const purchase = refund.purchaseId ? await this.book.get(refund.purchaseId) : null;
    if (purchase?.phase === "refunded") await this.teller.tell(purchase);
    else await this.quietly(this.channel.tellBuyer(refund, "refunded"));
    return refund;
  }

  private async quietly(task: Promise<void>): Promise<void> {
    await task.catch((error: unknown) => {
      this.log.warn({ err: error }, "could not say that a refund is due or done");
    });
  }
}
