// Where a refund is issued. A payment is owed back only when its top-up certainly did not
// happen (topup.ts decides: refused twice, offer changed, bouquet gone, paused past the
// window) or when it paid for nothing (payment-service.ts; a payment given back in part outside
// the bot is owed for the rest). Where the payment's own method refunds through its API
// (Khalti), the system is asked here, each call counted and recorded sent in the ledger before
// it leaves (one whose answer was lost is found out by the system's own lookup, never sent
// again blindly), retried with backoff and, after a few failures, a refusal, or a bank payment
// whose payer's mobile number the bot lacks, left to a person, with why (kept in the ledger,
// said in /refunds). Nothing is refunded while a top-up of its purchase is under way or unknown.
// One issuer per refund: the API is called only under a lease on the payment's refund in the
// ledger (claimRefund, a conditional write; the call counted, and the lease renewed, as it
// leaves), so that two replicas, or two paths of one, never call it for one payment at once.
// Telegram's Bot API cannot refund a card payment, so a person refunds it through the payment provider and records it here: marked
// once (the ledger refuses a second time), with who and when, and the buyer is told.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type OutcomeTeller, TELL_LEASE_MS } from "./outcomes.js";
import type {
  PaymentLedger,
  PaymentSystem,
  PaymentSystems,
  Refund,
  RefundByHand,
  RefundClaim,
} from "./payment.js";
import type { Log } from "./ports.js";
import type { PaymentMethod, Purchase } from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";
import { TaskGroup } from "./task-group.js";

/** What operators need to refund a payment by hand. */
export type RefundAlert = Pick<
  Refund,
  | "purchaseId"
  | "buyer"
  | "payer"
  | "method"
  | "currency"
  | "minor"
  | "chargeId"
  | "providerChargeId"
  | "refundedOutside"
  | "byHand"
>;

export interface RefundChannel {
  /**
   * Every admin and support group: a refund is due, or a paid top-up's outcome is still
   * unknown after the verify window (nothing is refunded until txn-status tells).
   */
  alertOperators(refund: RefundAlert, about: RefundAlertKind): Promise<void>;
  /**
   * Whoever paid a payment that paid for nothing (its payer, where the system names one, else
   * the buyer): it will be refunded, or it was.
   */
  tellBuyer(refund: Refund, state: "owed" | "refunded"): Promise<void>;
}

/** What operators are alerted about: a refund to make by hand, or an outcome to watch. */
export type RefundAlertKind =
  | "refund-due"
  | "refund-failed"
  | "outcome-unknown"
  /** A payment that pays for nothing (a wrong amount, a late one), refunded by the system's API. */
  | "stray-refunding"
  /** A payment given back in part outside the bot: the rest is a person's to refund. */
  | "part-refunded-due"
  /** A payment given back in part outside the bot: the rest refunded by the system's API. */
  | "part-refunded-refunding"
  /** The system says an offer's payment went back outside the bot (eSewa's FULL_REFUND). */
  | "refunded-outside"
  /** A paid purchase's buyer can never be messaged (blocked the bot, deleted the account). */
  | "buyer-unreachable";

/**
 * The last look before a refund (TopupService.lastLook): a top-up of the purchase under way or
 * unknown is "unknown"; owed back, txn-status for every token the purchase took. "charged": the
 * top-up happened after all (recorded and told), its payment is not refunded; "unknown": the
 * provider could not say, or the top-up is not settled, so nothing is refunded yet.
 */
export type LastLook = (purchaseId: string) => Promise<"owed" | "charged" | "unknown">;

/**
 * Refunds through the API of the systems that have one (`refund`), tried this many times,
 * first after `retryMs`; the other systems' refunds are a person's.
 */
/** Refunds owed read at a time when a start takes them up. */
const RESUMED_PER_PAGE = 100;

export interface AutomaticRefunds {
  systems: PaymentSystems;
  retryMs: number;
  maxAttempts: number;
  /** How long a lease on a refund lasts without renewal: well over one refund call. */
  leaseMs: number;
  /** Whose leases this desk takes (one per desk: a random id by default). */
  owner?: string;
}

/** Part of it went back outside the bot, and nobody says how much: the rest is unknown. */
export function restUnknown(refund: Pick<Refund, "refundedOutside">): boolean {
  return refund.refundedOutside !== undefined && refund.refundedOutside.minor === null;
}

export class RefundDesk {
  private readonly stopping = new AbortController();
  /** Refunds being issued through the system's API. */
  private readonly running: TaskGroup;
  /** The payments whose refund this desk is issuing: one loop each. */
  private readonly issuing = new Set<string>();
  private readonly owner: string;

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
    this.owner = automatic?.owner ?? randomUUID();
  }

  /** A payment that pays for nothing (recorded as owed by the ledger): say so to all. */
  async owe(refund: Refund): Promise<void> {
    this.log.warn({ purchaseId: refund.purchaseId, paymentId: refund.paymentId }, "refund due");
    await this.quietly(this.channel.tellBuyer(refund, "owed"));
    const automatic = this.byApi(refund);
    const about: RefundAlertKind = refund.refundedOutside
      ? automatic
        ? "part-refunded-refunding"
        : "part-refunded-due"
      : automatic
        ? "stray-refunding"
        : "refund-due";
    await this.quietly(this.channel.alertOperators(refund, about));
    if (automatic) this.start(refund);
  }

  /**
   * Whether this refund is the API's: its method has one, and what it owes is known. Part of a
   * payment given back outside the bot by an amount nobody states leaves the rest unknown: what
   * an empty ("full") refund would give back then is not documented (all of it again?), so a
   * person refunds the rest; one whose part is stated is refunded by that `{amount}`.
   */
  private byApi(refund: Refund): boolean {
    return this.refunderOf(refund.method) !== undefined && !restUnknown(refund);
  }

  /** The system that refunds this method's payments through its API; undefined: a person. */
  private refunderOf(method: PaymentMethod): PaymentSystem | undefined {
    const system = this.automatic?.systems.get(method);
    return system?.refund ? system : undefined;
  }

  /**
   * A purchase became refund-due (at its first telling, whether or not its buyer could be
   * told): refunded through the API, or operators alerted (said once per payment).
   */
  async purchaseOwed(purchase: Purchase): Promise<void> {
    const method = purchase.payment?.method;
    if (!method || !this.refunderOf(method)) return this.alertAbout(purchase, "refund-due");
    const refund = await this.ledger.refundDueFor(purchase.id);
    if (refund) this.start(refund);
  }

  /** At start: refunds by API that a stopped process left unfinished are taken up again. */
  async resume(): Promise<void> {
    const automatic = this.automatic;
    if (!automatic) return;
    // Every refund owed through an API, page by page: refunds owed by hand (cards, eSewa), however
    // many, never crowd them out.
    const methods = [...automatic.systems.keys()];
    let after: Refund | undefined;
    for (;;) {
      const page = await this.ledger.refundsDue(RESUMED_PER_PAGE, { methods, after });
      for (const refund of page) {
        // One left to a person stays theirs.
        // A call whose outcome is unknown is found out, whatever the tries spent.
        const open = refund.attempts < automatic.maxAttempts || refund.sentAt !== undefined;
        if (this.byApi(refund) && !refund.byHand && open) this.start(refund);
      }
      if (page.length < RESUMED_PER_PAGE) return;
      after = page.at(-1);
    }
  }

  /** Stops waiting between tries (shutdown); what is still owed stays due in the ledger. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running.drain();
  }

  /** One loop per payment in this desk; other desks are kept off by the lease. */
  private start(refund: Refund): void {
    if (this.issuing.has(refund.paymentId)) return;
    this.issuing.add(refund.paymentId);
    this.running.track(this.issue(refund).finally(() => this.issuing.delete(refund.paymentId)));
  }

  /**
   * Each call is made only under this desk's lease on the payment's refund, taken afresh at
   * every try (another desk holding it: this one waits, and takes over if that lease lapses;
   * the refund no longer owed through the API: done). Each call is counted in the ledger, and
   * recorded sent, before it leaves, so that a refund is never asked for more times than
   * allowed, across restarts; one whose answer was lost is found out by the system's lookup
   * before anything else (never sent again blindly); one that did not refund is tried again
   * after a growing pause; after the last try, or an answer that says the system will not, a
   * person takes over. Nothing is refunded while a top-up of its purchase is under way or
   * unknown (the last look, right before each call).
   * A system that asks for the payer's mobile number (a Khalti bank payment) gets it on the
   * next call when one is kept for the payment's offer (Khalti's return page gave it); while
   * none is, the refund waits as for a failure (the page may still come), then a person takes
   * over, told why.
   */
  private async issue(refund: Refund): Promise<void> {
    const automatic = this.automatic;
    const system = this.refunderOf(refund.method);
    const refundBy = system?.refund?.bind(system);
    if (!automatic || !system || !refundBy) return;
    let pause = automatic.retryMs;
    const mobile = { needed: false, waited: 0 };
    for (; ; pause = Math.min(pause * 2, automatic.retryMs * 32)) {
      const claim = await this.ledger
        .claimRefund(refund.paymentId, this.owner, automatic.leaseMs)
        .catch((error: unknown): RefundClaim => {
          this.log.warn({ err: error, paymentId: refund.paymentId }, "refund lease not taken");
          return { state: "held" };
        });
      if (claim.state === "settled") return;
      if (claim.state === "held") {
        if (!(await this.pause(pause))) return;
        continue;
      }
      try {
        const next = await this.tryOnce(refund, system, refundBy, claim, mobile).catch(
          (error: unknown) => {
            // The ledger away mid-try: what it holds (owed, a call sent) is taken up again.
            this.log.warn({ err: error, paymentId: refund.paymentId }, "refund not issued yet");
            return "again" as const;
          },
        );
        if (next === "done") return;
        if (next === "now") continue;
      } finally {
        await this.ledger.releaseRefund(refund.paymentId, this.owner).catch(() => undefined);
      }
      if (!(await this.pause(pause))) return;
    }
  }

  /**
   * One try under the lease: "done" (refunded, left to a person, charged after all, or owed no
   * more), "again" after a pause, "now" at once (with the payer's mobile). A call whose answer
   * was lost is found out first, by the system's own lookup: refunded, or tried again as any.
   */
  private async tryOnce(
    refund: Refund,
    system: PaymentSystem,
    refundBy: NonNullable<PaymentSystem["refund"]>,
    claim: Extract<RefundClaim, { state: "claimed" }>,
    mobile: { needed: boolean; waited: number },
  ): Promise<"done" | "again" | "now"> {
    const automatic = this.automatic;
    if (!automatic) return "done";
    if (claim.sent) {
      const found = await this.findOut(refund, system);
      if (found !== "not-refunded") return found;
    }
    // Right before the call: nothing is refunded while a top-up of the purchase is under way or
    // unknown. Charged after all: the purchase's own payment is owed no more (the next claim
    // says so); a stray one still is, and is refunded at the next try.
    const look = refund.purchaseId ? await this.lookLast(refund.purchaseId) : "owed";
    if (look !== "owed") return "again";
    let payerMobile: string | undefined;
    if (mobile.needed) {
      payerMobile = (await this.ledger.payerMobileFor(refund.paymentId)) ?? undefined;
      if (payerMobile === undefined) {
        if (++mobile.waited >= automatic.maxAttempts) {
          await this.handOver(refund, "needs-mobile");
          return "done";
        }
        return "again";
      }
    }
    if (claim.attempts >= automatic.maxAttempts) {
      await this.handOver(refund, "failed");
      return "done";
    }
    const attempt = await this.ledger.countRefundAttempt(
      refund.paymentId,
      this.owner,
      automatic.leaseMs,
    );
    // Owed no more, or the lease was lost meanwhile: the next try asks for it again.
    if (attempt === null) return "again";
    let answer: Awaited<ReturnType<typeof refundBy>>;
    try {
      answer = await refundBy(refund, payerMobile);
    } catch (error) {
      // Sent, and no answer read: it may have refunded. Never sent again blindly: the next try
      // asks the system's own lookup first (the ledger refuses another call until then).
      this.log.warn(
        { err: error, paymentId: refund.paymentId, attempt },
        "refund sent, outcome unknown: found out by the payment system's lookup",
      );
      return "again";
    }
    if (answer === "refunded") {
      await this.markRefunded(
        refund.paymentId,
        system.method,
        payerMobile ? "with the payer's mobile number" : null,
      );
      return "done";
    }
    await this.ledger.refundAnswered(refund.paymentId, this.owner);
    if (answer === "needs-mobile" && payerMobile === undefined) {
      mobile.needed = true;
      return "now";
    }
    // Refused, or refused with the number kept too: a person's, who can ask the payer.
    await this.handOver(refund, answer === "refused" ? "refused" : "needs-mobile");
    return "done";
  }

  /**
   * A refund call whose answer was lost: the system's own lookup says whether it refunded.
   * "done" when it did (recorded and told), "not-refunded" when it did not (another call may
   * follow), "again" when it cannot tell yet (asked again, never forgotten: the refund stays
   * owed, and a start takes it up again).
   */
  private async findOut(
    refund: Refund,
    system: PaymentSystem,
  ): Promise<"done" | "again" | "not-refunded"> {
    if (!system.refunded) {
      await this.handOver(refund, "failed");
      return "done";
    }
    let refunded: boolean;
    try {
      refunded = await system.refunded(refund);
    } catch (error) {
      this.log.warn(
        { err: error, paymentId: refund.paymentId },
        "a refund's outcome is still unknown: asked again",
      );
      return "again";
    }
    if (refunded) {
      await this.markRefunded(refund.paymentId, system.method, "found refunded by its lookup");
      return "done";
    }
    await this.ledger.refundAnswered(refund.paymentId, this.owner);
    return "not-refunded";
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

  /** Left to a person, with why: kept in the ledger (/refunds says it), and alerted. */
  private async handOver(refund: Refund, why: RefundByHand): Promise<void> {
    this.log.error({ paymentId: refund.paymentId, why }, "refund left to a person");
    await this.ledger.handOverRefund(refund.paymentId, why).catch((error: unknown) => {
      this.log.warn(
        { err: error, paymentId: refund.paymentId },
        "why a refund is a person's not kept",
      );
    });
    await this.quietly(this.channel.alertOperators({ ...refund, byHand: why }, "refund-failed"));
  }

  /**
   * A paid purchase still unknown after the verify window was told "still checking" (once):
   * nothing is refunded while the top-up may have happened, so people are told to watch it.
   */
  outcomeUnknown(purchase: Purchase): Promise<void> {
    return this.alertAbout(purchase, "outcome-unknown");
  }

  /**
   * A paid purchase's outcome can never be told (its buyer blocked the bot, or deleted their
   * account): people are told, for a refund owed or an outcome unknown (a top-up made needs
   * nobody, a refund owed is made all the same).
   */
  async buyerUnreachable(purchase: Purchase): Promise<void> {
    if (purchase.phase !== "refund-due" && purchase.phase !== "unknown") return;
    await this.alertAbout(purchase, "buyer-unreachable");
  }

  /**
   * The payment system says the payment of an offer still awaited went back in full outside the
   * bot (Khalti's Refunded, eSewa's FULL_REFUND): nothing was topped up, and people are told to
   * see that the buyer was paid back in full. (In part: a payment recorded, the rest owed.)
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

  /**
   * Whether the bot is still refunding this through the system's API (not handed to a person):
   * a person must not refund it too, or the buyer is paid twice (/refunds, /refunded).
   */
  refundingAutomatically(refund: Refund): boolean {
    return this.byApi(refund) && !refund.byHand;
  }

  /** Refunds still owed, oldest first. */
  due(count: number): Promise<Refund[]> {
    return this.ledger.refundsDue(count);
  }

  /**
   * The refund of this payment (the ledger's id) is done (by the system's API, or someone
   * through the payment provider): recorded once, and the buyer told. Null when it is not
   * owed (any more).
   */
  async markRefunded(paymentId: string, by: string, note: string | null): Promise<Refund | null> {
    const marked = await this.ledger.markRefunded(paymentId, by, note, TELL_LEASE_MS);
    if (!marked) return null;
    const { lease, purchaseRefunded, ...refund } = marked;
    this.log.info({ purchaseId: refund.purchaseId, paymentId: refund.paymentId }, "refunded");
    if (!purchaseRefunded) {
      // A payment that paid for nothing: said of the payment, its purchase being as it was.
      await this.quietly(this.channel.tellBuyer(refund, "refunded"));
      return refund;
    }
    // Its purchase refunded: told under its lease, by one teller only, from the ledger's copy
    // (this process's may be older). Held by another (telling its earlier phase), that holder
    // or the next reconciliation tells it.
    if (!lease || refund.purchaseId === null) return refund;
    try {
      const purchase = await this.book.store.get(refund.purchaseId);
      if (purchase) await this.teller.tell(purchase, true);
    } finally {
      await lease.release().catch(() => undefined);
    }
    return refund;
  }

  private async quietly(task: Promise<void>): Promise<void> {
    await task.catch((error: unknown) => {
      this.log.warn({ err: error }, "could not say that a refund is due or done");
    });
  }
}
