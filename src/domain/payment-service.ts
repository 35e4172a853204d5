// Where a payment is confirmed. A paid purchase starts waiting for its payment (the invoice
// out), is checked before the payment system takes the money, and becomes paid only from the
// payment system's own confirmation, recorded once per charge id before anything else. Then
// its top-up runs (topup.ts); a payment that pays for nothing is owed back (refunds.ts). A
// confirmation the ledger cannot take is kept in the journal (durable before it is
// acknowledged) and replayed until the ledger has it. Several systems may be offered: the
// buyer picks one, and may pick another before paying (one purchase, several offers); an offer
// withdrawn so is still looked up until its window ends, and whichever payment comes first pays
// for the purchase, any other being owed back.

import type { OutcomeTeller } from "./outcomes.js";
import {
  type OfferRef,
  type PaymentJournal,
  type PaymentLedger,
  type PaymentLookup,
  type PaymentReceipt,
  type PaymentSystem,
  type PaymentSystems,
  type ReceivedPayment,
  toMinorUnits,
} from "./payment.js";
import type { Clock, Log } from "./ports.js";
import {
  type Claim,
  type PaymentMethod,
  type Purchase,
  StaleWriteError,
  type UnpaidReason,
} from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";
import { advance } from "./purchase-machine.js";
import type { RefundDesk } from "./refunds.js";
import { TaskGroup } from "./task-group.js";
import type { PurchaseIntent, TopupService } from "./topup.js";
import { WriteBehind } from "./write-behind.js";

export interface PaymentOptions {
  currency: string;
  /** Digits of the currency's minor unit. */
  minorDigits: number;
  /** How long an invoice may be paid. */
  windowMs: number;
  /** Lease on a purchase while its payment is offered or its top-up runs. */
  lockTtlMs: number;
  /** The journal's confirmations are replayed into the ledger this often while it holds any. */
  retryMs: number;
  /** Systems that must be asked (Khalti): how often an unsettled offer is looked up. */
  checkMs: number;
}

/** Withdrawn offers looked up per pass. */
const OFFERS_PER_PASS = 20;

/** What "I have paid" (or the return page) found when it asked the payment system. */
export type CheckOutcome = "paid" | "waiting" | "pending" | "ended" | "unknown" | "not-found";

export type OpenOutcome =
  | { kind: "offered"; purchase: Purchase }
  /** This very intent was taken already (double tap, duplicate update, replay). */
  | { kind: "duplicate" }
  /** The price cannot be asked in the currency's minor units. */
  | { kind: "unpayable" }
  /** The purchase could not be recorded, or the invoice not sent: nothing can be paid. */
  | { kind: "unavailable" };

/** Why a payment about to be made is refused; each is said to the payer in their language. */
export type PaymentRefusal =
  | "unknown-payment"
  | "amount-differs"
  | "payment-expired"
  | "payment-cancelled"
  | "already-paid"
  | "topups-paused"
  | "ledger-unavailable";

export interface PaymentCheck {
  /** null: the payment may be taken. */
  refusal: PaymentRefusal | null;
  /** The buyer's language, when the purchase could be read. */
  language?: string;
}

/** Whether top-ups can be made now (the provider answers and takes our token). */
export type TopupsOpen = () => boolean;

/** Neither the ledger nor the journal took a confirmation: it must be delivered again. */
export class ConfirmationNotKept extends Error {
  constructor(cause: unknown) {
    super("a payment confirmation could be kept neither in the ledger nor in the journal", {
      cause,
    });
    this.name = "ConfirmationNotKept";
  }
}

/** What a check says of a purchase that no longer awaits its payment; null while it does. */
const settledCheck = (purchase: Purchase | null): CheckOutcome | null => {
  if (purchase?.phase === "awaiting-payment") return null;
  return purchase?.phase === "unpaid" ? "ended" : "paid";
};

export class PaymentService {
  /** Whether the journal may hold confirmations (replayed until it is empty). */
  private journaled = false;
  private readonly replays: WriteBehind;
  /** Paid top-ups under way. */
  private readonly running: TaskGroup;
  /** Purchases whose buyer was told their payment is held (Pending). */
  private readonly saidPending = new Set<string>();
  /** The methods offered, in the order of the buyer's buttons. */
  readonly methods: PaymentMethod[];
  /** The passes over withdrawn offers, every `checkMs` once started. */
  private sweep: { timer: NodeJS.Timeout; running: boolean } | undefined;

  constructor(
    private readonly book: PurchaseBook,
    private readonly ledger: PaymentLedger,
    private readonly journal: PaymentJournal,
    private readonly topups: TopupService,
    private readonly teller: OutcomeTeller,
    private readonly systems: PaymentSystems,
    private readonly refunds: RefundDesk,
    private readonly topupsOpen: TopupsOpen,
    private readonly options: PaymentOptions,
    private readonly log: Log,
    private readonly now: Clock = Date.now,
  ) {
    this.replays = new WriteBehind({
      write: () => this.replay(),
      waiting: () => this.journaled,
      retryMs: options.retryMs,
      onFailure: (error) => this.log.error({ err: error }, "payment journal not replayed"),
    });
    this.running = new TaskGroup((error) => this.log.error({ err: error }, "paid top-up failed"));
    this.methods = [...systems.keys()];
  }

  /** The system of the purchase's current offer. */
  private systemOf(purchase: Purchase): PaymentSystem | undefined {
    const method = purchase.payment?.method;
    return method === undefined ? undefined : this.systems.get(method);
  }

  /**
   * The buyer confirmed, paying by `method` (the first offered by default): the purchase is
   * recorded as awaiting payment (the buyer's older unpaid invoices are withdrawn) and its
   * invoice sent. Confirmed again with another method before paying, the same purchase
   * switches to it: the earlier offer is withdrawn and the new one made.
   */
  async open(intent: PurchaseIntent, method?: PaymentMethod): Promise<OpenOutcome> {
    const system = this.systems.get(method ?? this.methods[0] ?? "telegram");
    if (!system) return { kind: "unavailable" };
    const minor = this.payable(intent.bouquet.price, system);
    if (minor === null) return { kind: "unpayable" };
    const purchase = this.topups.newPurchase(intent);
    // The outcome comes long after the summary, below the invoice: a new message, not an edit.
    delete purchase.statusMessage;
    purchase.phase = "awaiting-payment";
    purchase.payment = {
      method: system.method,
      currency: this.options.currency,
      minor,
      expiresAt: this.now() + this.options.windowMs,
    };
    try {
      await this.withdrawOlder(intent.buyer, purchase.id);
      const creation = await this.book.store.create(purchase, this.options.lockTtlMs);
      if (creation.kind !== "created") return await this.switchTo(intent, system);
      try {
        await this.offer(purchase, system);
      } finally {
        await creation.lease.release().catch(() => undefined);
      }
    } catch (error) {
      return this.notOffered(purchase, error);
    }
    return { kind: "offered", purchase };
  }

  /** The price in minor units, when this system can take it (Khalti: NPR 10 at least). */
  private payable(price: string, system: PaymentSystem): number | null {
    const minor = toMinorUnits(price, this.options.minorDigits);
    return minor === null || minor < Math.max(1, system.minimumMinor ?? 1) ? null : minor;
  }

  /** The offer made and its handle written (before the buyer can pay, where it must be). */
  private async offer(purchase: Purchase, system: PaymentSystem): Promise<void> {
    const asked = purchase.payment;
    if (!asked) throw new Error("a purchase without a payment cannot be offered");
    // A system that must be asked is asked again soon; otherwise at the window's end.
    const dueAt = system.lookup ? this.nextCheck() : undefined;
    const offered = await system.offer(purchase, async (handle) => {
      asked.offer = handle;
      await this.book.commit(purchase, dueAt);
    });
    asked.offer = offered.handle;
    if (offered.message !== undefined) purchase.statusMessage = offered.message;
    await this.book.commit(purchase, dueAt);
  }

  /** An invoice that never went out: the purchase ends here (if it was recorded at all). */
  private async notOffered(purchase: Purchase, error: unknown): Promise<OpenOutcome> {
    this.log.warn({ err: error, purchaseId: purchase.id }, "payment not offered");
    if (purchase.payment?.offer === undefined) {
      await this.end(purchase, "cancelled", true).catch(() => undefined);
    }
    return { kind: "unavailable" };
  }

  /**
   * The intent exists already: the same method again is a duplicate (a double tap); another
   * one, while the purchase still waits for its payment, replaces the offer. The earlier offer
   * is withdrawn in the ledger first (it stays known: a payment made on it is still found),
   * then in the chat; every write names the version read, so a payment meanwhile wins.
   */
  private async switchTo(intent: PurchaseIntent, system: PaymentSystem): Promise<OpenOutcome> {
    const purchase = await this.book.get(intent.intentId);
    const asked = purchase?.payment;
    if (
      purchase?.phase !== "awaiting-payment" ||
      purchase.buyer !== intent.buyer ||
      !asked ||
      asked.method === system.method
    ) {
      return { kind: "duplicate" };
    }
    if (this.payable(intent.bouquet.price, system) === null) return { kind: "unpayable" };
    const earlier: Purchase = { ...purchase, payment: { ...asked } };
    asked.method = system.method;
    delete asked.offer;
    delete purchase.statusMessage;
    try {
      await this.book.commit(purchase, system.lookup ? this.nextCheck() : undefined);
    } catch (error) {
      if (error instanceof StaleWriteError) return { kind: "duplicate" };
      throw error;
    }
    this.log.info({ purchaseId: purchase.id, method: system.method }, "payment method switched");
    await this.systemOf(earlier)
      ?.withdraw(earlier)
      .catch((error: unknown) => {
        this.log.warn({ err: error, purchaseId: purchase.id }, "could not withdraw an invoice");
      });
    try {
      await this.offer(purchase, system);
    } catch (error) {
      return this.notOffered(purchase, error);
    }
    return { kind: "offered", purchase };
  }

  /**
   * The last word before the payment system takes the money (no refusal: it may), with the
   * buyer's language as their purchase has it, for a refusal's reason.
   */
  async check(purchaseId: string, currency: string, minor: number): Promise<PaymentCheck> {
    let purchase: Purchase | null;
    try {
      purchase = await this.book.get(purchaseId);
    } catch {
      return { refusal: "ledger-unavailable" };
    }
    return purchase
      ? { refusal: this.refusal(purchase, currency, minor), language: purchase.language }
      : { refusal: "unknown-payment" };
  }

  private refusal(purchase: Purchase, currency: string, minor: number): PaymentRefusal | null {
    if (!purchase.payment) return "unknown-payment";
    if (purchase.payment.currency !== currency || purchase.payment.minor !== minor) {
      return "amount-differs";
    }
    if (purchase.phase === "unpaid") {
      return purchase.reason === "expired" ? "payment-expired" : "payment-cancelled";
    }
    if (purchase.phase !== "awaiting-payment") return "already-paid";
    if (this.now() > purchase.payment.expiresAt) return "payment-expired";
    if (!this.topupsOpen()) return "topups-paused";
    return null;
  }

  /**
   * The payment system's confirmation: recorded before anything else, then topped up, or owed
   * back when it pays for nothing. While the ledger is away it is kept in the journal (the
   * top-up waits for the replay); throws ConfirmationNotKept when even that fails.
   */
  async receive(payment: ReceivedPayment): Promise<PaymentReceipt["kind"] | "kept"> {
    let receipt: PaymentReceipt;
    try {
      receipt = await this.ledger.receivePayment(payment, this.options.lockTtlMs);
    } catch (error) {
      await this.keep(payment, error);
      return "kept";
    }
    await this.follow(payment, receipt);
    return receipt.kind;
  }

  private async keep(payment: ReceivedPayment, error: unknown): Promise<void> {
    try {
      await this.journal.append(payment);
    } catch (failure) {
      // The charge id lets a person find it in Telegram's receipts should it never come again.
      this.log.error(
        { purchaseId: payment.purchaseId, chargeId: payment.charge.id, reason: String(failure) },
        "payment confirmation kept nowhere: it must be delivered again",
      );
      throw new ConfirmationNotKept(failure);
    }
    if (!this.journaled) {
      this.log.error(
        { purchaseId: payment.purchaseId, reason: error instanceof Error ? error.message : "" },
        "payment kept in the journal until the ledger is back",
      );
    }
    this.journaled = true;
    this.replays.schedule();
  }

  /** What a recorded confirmation starts. */
  private async follow(payment: ReceivedPayment, receipt: PaymentReceipt): Promise<void> {
    switch (receipt.kind) {
      case "duplicate":
        this.log.info({ purchaseId: payment.purchaseId }, "payment confirmation seen before");
        break;
      case "stray":
        await this.refunds.owe(receipt.refund);
        break;
      case "applied":
        this.log.info({ purchaseId: payment.purchaseId }, "payment received");
        // In the background: the chat is not held while the provider is asked.
        this.running.track(this.topups.resolve(receipt.claim));
    }
  }

  /**
   * The journal into the ledger (at start, then every `retryMs` while it holds any); what the
   * ledger took leaves the journal. A replay under way is joined, not run twice.
   */
  private async replay(): Promise<void> {
    const kept = await this.journal.read();
    if (kept.length === 0) {
      this.journaled = false;
      return;
    }
    const written = new Set<string>();
    try {
      for (const payment of kept) {
        const receipt = await this.ledger.receivePayment(payment, this.options.lockTtlMs);
        written.add(payment.charge.id);
        await this.follow(payment, receipt).catch((error: unknown) =>
          this.log.error({ err: error, purchaseId: payment.purchaseId }, "payment not followed"),
        );
      }
    } catch {
      // The ledger is still away: the rest waits for the next replay.
    } finally {
      if (written.size > 0) await this.journal.settle(written);
    }
    if (written.size === kept.length && (await this.journal.read()).length === 0) {
      this.journaled = false;
      this.log.info({ count: written.size }, "payments written after all");
    }
  }

  /** The buyer's language as their purchase has it; undefined when it cannot be read. */
  async languageOf(purchaseId: string): Promise<string | undefined> {
    return (await this.book.get(purchaseId).catch(() => null))?.language;
  }

  /** Waits for the top-ups under way (graceful shutdown). */
  drain(): Promise<void> {
    return this.running.drain();
  }

  /** The buyer cancels before paying: every invoice of theirs still unpaid is withdrawn. */
  async cancel(buyer: number): Promise<number> {
    let withdrawn = 0;
    for (const purchase of await this.ledger.awaitingPayment(buyer)) {
      if (await this.endUnlessMoved(purchase)) withdrawn++;
    }
    return withdrawn;
  }

  /**
   * Reconciliation's claim: an invoice whose window has passed is withdrawn ("not paid");
   * anything else is the top-up's.
   */
  async resolve(claim: Claim): Promise<void> {
    const purchase = await this.book.get(claim.id).catch(() => null);
    if (purchase?.phase !== "awaiting-payment") return this.topups.resolve(claim);
    if (this.systemOf(purchase)?.lookup) {
      // Given back first: a payment found is recorded, and leased, anew by `receive`.
      await claim.lease.release().catch(() => undefined);
      await this.lookUp(purchase, true);
      return;
    }
    try {
      const expiresAt = purchase.payment?.expiresAt ?? 0;
      if (this.now() < expiresAt) await this.book.store.postpone(purchase, expiresAt);
      else await this.teller.tell(await this.end(purchase, "expired"));
    } catch (error) {
      // Paid or ended meanwhile: whoever moved it finishes it.
      if (!(error instanceof StaleWriteError)) throw error;
    } finally {
      await claim.lease.release().catch(() => undefined);
    }
  }

  /**
   * Asks the payment system now ("I have paid", the return page, reconciliation's next
   * check). Only its own answer counts: a paid one is recorded like any confirmation.
   */
  async checkNow(purchaseId: string): Promise<CheckOutcome> {
    return this.checkPurchase(await this.book.get(purchaseId).catch(() => null));
  }

  /** "I have paid": only the buyer's press asks the payment system. */
  async checkForBuyer(purchaseId: string, user: number): Promise<CheckOutcome | "not-yours"> {
    const purchase = await this.book.get(purchaseId).catch(() => null);
    if (purchase && purchase.buyer !== user) return "not-yours";
    return this.checkPurchase(purchase);
  }

  private async checkPurchase(purchase: Purchase | null): Promise<CheckOutcome> {
    if (!purchase?.payment) return "not-found";
    return settledCheck(purchase) ?? this.lookUp(purchase, false);
  }

  /**
   * `tellPending`: a held payment is said to the buyer (not when they asked themselves). The
   * purchase may move on while the system is asked (a payment found elsewhere): every write
   * here names the version read, and a lost race is answered from the purchase as it now is.
   */
  private async lookUp(purchase: Purchase, tellPending: boolean): Promise<CheckOutcome> {
    try {
      return await this.lookUpOnce(purchase, tellPending);
    } catch (error) {
      if (!(error instanceof StaleWriteError)) throw error;
      this.log.info({ purchaseId: purchase.id }, "a payment lookup lost a race: read again");
      return settledCheck(await this.book.get(purchase.id)) ?? "waiting";
    }
  }

  private async lookUpOnce(purchase: Purchase, tellPending: boolean): Promise<CheckOutcome> {
    const payment = purchase.payment;
    const system = this.systemOf(purchase);
    if (!payment || !system?.lookup) return "unknown";
    let found: PaymentLookup;
    try {
      found = await system.lookup(purchase);
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "payment lookup failed");
      await this.book.store.postpone(purchase, this.nextCheck()).catch(() => undefined);
      return "unknown";
    }
    if (found.state === "not-found") {
      // Unpaid only once the offer has expired, at this last lookup after it: until then the
      // system may just not show a new offer yet, and a payment on it would be lost.
      found =
        this.now() > payment.expiresAt
          ? { state: "ended", cancelled: false }
          : { state: "waiting", pending: false };
    }
    switch (found.state) {
      case "paid": {
        this.saidPending.delete(purchase.id);
        const received = await this.receive({
          method: payment.method,
          purchaseId: purchase.id,
          currency: payment.currency,
          minor: found.minor,
          charge: found.charge,
        });
        if (received === "applied" || received === "kept") return "paid";
        // Recorded before, or paying for nothing: an offer still awaiting after it was not paid
        // by it (another amount, owed back) and ends here.
        const now = await this.book.get(purchase.id);
        const settled = settledCheck(now);
        if (settled || !now) return settled ?? "paid";
        await this.end(now, "amount-differs", true);
        return "ended";
      }
      case "waiting":
        // Nothing new: only the next check time, and only if nothing else moved it meanwhile.
        await this.book.store.postpone(purchase, this.nextCheck());
        if (!found.pending) return "waiting";
        if (tellPending) await this.sayPending(purchase);
        return "pending";
      case "ended":
        this.saidPending.delete(purchase.id);
        await this.teller.tell(await this.end(purchase, found.cancelled ? "cancelled" : "expired"));
        return "ended";
      case "refunded":
        await this.refunds.refundedOutside(purchase);
        await this.teller.tell(await this.end(purchase, "expired"));
        return "ended";
    }
  }

  /** Once (per process): the system holds the payment, so the buyer must not pay again. */
  private async sayPending(purchase: Purchase): Promise<void> {
    const system = this.systemOf(purchase);
    if (this.saidPending.has(purchase.id) || !system?.pending) return;
    this.saidPending.add(purchase.id);
    await system.pending(purchase).catch((error: unknown) => {
      this.log.warn({ err: error, purchaseId: purchase.id }, "could not say a payment is pending");
    });
  }

  private nextCheck(): number {
    return this.now() + this.options.checkMs;
  }

  /** Confirmations still in the journal when stopping wait there for the next start. */
  stop(): void {
    this.replays.stop();
    if (this.sweep) clearInterval(this.sweep.timer);
    if (this.journaled) {
      this.log.warn({}, "payments left in the journal: written at the next start");
    }
  }

  /** The buyer's other unpaid invoices; this very intent's (a replay) is left as it is. */
  private async withdrawOlder(buyer: number, intentId: string): Promise<void> {
    for (const older of await this.ledger.awaitingPayment(buyer)) {
      if (older.id !== intentId) await this.endUnlessMoved(older);
    }
  }

  /**
   * Cancelled by its buyer, unless it was paid (or ended) meanwhile. A system that must be asked
   * is asked first: a payment already made is received, never cancelled away, and one that
   * cannot be asked now (or holds a payment) stays awaiting, looked up at its next check.
   */
  private async endUnlessMoved(purchase: Purchase): Promise<boolean> {
    const mustAsk = this.systemOf(purchase)?.lookup !== undefined;
    if (mustAsk && (await this.lookUp(purchase, false)) !== "waiting") return false;
    try {
      await this.end(purchase, "cancelled", true);
      return true;
    } catch (error) {
      if (error instanceof StaleWriteError) return false;
      throw error;
    }
  }

  /** Unpaid: the offer is withdrawn; a cancellation is its own telling. */
  private async end(
    purchase: Purchase,
    reason: UnpaidReason,
    toldByCaller = false,
  ): Promise<Purchase> {
    if (purchase.phase !== "awaiting-payment") return purchase;
    advance(purchase, { type: "end-unpaid", reason }, this.now());
    if (toldByCaller) purchase.told = "unpaid";
    await this.book.commit(purchase);
    if (purchase.payment?.offer !== undefined) {
      await this.systemOf(purchase)
        ?.withdraw(purchase)
        .catch((error: unknown) => {
          this.log.warn({ err: error, purchaseId: purchase.id }, "could not withdraw an invoice");
        });
    }
    return purchase;
  }

  /**
   * At start: what the journal kept is replayed now, and again until it is all written; the
   * withdrawn offers are looked up from now on.
   */
  async resume(): Promise<void> {
    this.journaled = true;
    await this.replays.writeNow();
    this.startSweep();
  }

  /** Every `checkMs`, one pass over the withdrawn offers due (one pass at a time). */
  private startSweep(): void {
    if (this.sweep || ![...this.systems.values()].some((system) => system.lookup)) return;
    const sweep = {
      running: false,
      timer: setInterval(() => {
        if (sweep.running) return;
        sweep.running = true;
        this.lookWithdrawn()
          .catch((error: unknown) =>
            this.log.warn({ err: error }, "withdrawn offers not looked up"),
          )
          .finally(() => {
            sweep.running = false;
          });
      }, this.options.checkMs),
    };
    sweep.timer.unref();
    this.sweep = sweep;
  }

  /**
   * The withdrawn offers due, of the systems that must be asked: a payment made on one anyway
   * pays for its purchase if nothing else did, and is owed back otherwise.
   */
  private async lookWithdrawn(): Promise<void> {
    const methods = [...this.systems.values()].filter((s) => s.lookup).map((s) => s.method);
    const offers = await this.ledger.offersToLook(methods, OFFERS_PER_PASS, this.options.checkMs);
    for (const offer of offers) {
      await this.lookOffer(offer).catch((error: unknown) => {
        this.log.warn(
          { err: error, purchaseId: offer.purchaseId },
          "withdrawn offer not looked up",
        );
      });
    }
  }

  /**
   * The return page of an offer (Khalti's pidx): the purchase's current offer is checked as
   * "I have paid" does; a withdrawn one is looked up by itself.
   */
  async checkOffer(purchase: Purchase, method: PaymentMethod, handle: string) {
    const current = purchase.payment;
    if (current?.method === method && current.offer === handle) return this.checkNow(purchase.id);
    return this.lookOffer({ purchaseId: purchase.id, method, handle });
  }

  /**
   * One withdrawn offer looked up: paid is received like any confirmation (the current offer's
   * invoice then withdrawn if this one paid for the purchase); it is closed once paid, ended,
   * or not paid at one last look after the purchase's window (unless the system holds a
   * payment on it).
   */
  private async lookOffer(offer: OfferRef): Promise<CheckOutcome> {
    const system = this.systems.get(offer.method);
    const purchase = await this.book.get(offer.purchaseId);
    const payment = purchase?.payment;
    if (!system?.lookup || !purchase || !payment) {
      await this.ledger.closeOffer(offer);
      return "not-found";
    }
    const withdrawn = { ...payment, method: offer.method, offer: offer.handle };
    let found: PaymentLookup;
    try {
      found = await system.lookup({ ...purchase, payment: withdrawn });
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "payment lookup failed");
      return "unknown";
    }
    const over = this.now() > payment.expiresAt;
    switch (found.state) {
      case "paid": {
        const received = await this.receive({
          method: offer.method,
          purchaseId: purchase.id,
          currency: payment.currency,
          minor: found.minor,
          charge: found.charge,
        });
        await this.ledger.closeOffer(offer);
        if (received === "applied" && payment.offer !== undefined) {
          // The offer the buyer switched to cannot be paid any more (a Telegram invoice).
          await this.systemOf(purchase)
            ?.withdraw(purchase)
            .catch(() => undefined);
        }
        return "paid";
      }
      case "waiting":
        if (found.pending) return "pending";
        if (!over) return "waiting";
        break;
      case "not-found":
        if (!over) return "waiting";
        break;
      case "ended":
      case "refunded":
        break;
    }
    await this.ledger.closeOffer(offer);
    return "ended";
  }
}
