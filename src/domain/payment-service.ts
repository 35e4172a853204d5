// Where a payment is confirmed. A paid purchase starts waiting for its payment (the invoice
// out), is checked before the payment system takes the money, and becomes paid only from the
// payment system's own confirmation, recorded once per charge id before anything else. Then
// its top-up runs (topup.ts); a payment that pays for nothing is owed back (refunds.ts). A
// confirmation the ledger cannot take is kept in the journal (durable before it is
// acknowledged) and replayed until the ledger has it; one that cannot be recorded as it came
// (an impossible amount, or one the ledger refuses) is set aside for a person instead, never
// retried. Several systems may be offered: the buyer picks one, and may pick another before
// paying (one purchase, several offers). An offer lives as long as its payment system takes a
// payment on it, not as long as its purchase waits: one withdrawn (a switch of method) or whose
// purchase ended unpaid (cancelled, replaced by a newer one, its window over) is watched until
// its payable-until, its system's margin after it (our clock may run ahead of the system's),
// and one last look. Whichever payment comes first pays for the purchase,
// even one found after it ended (then paid late); any other is owed back. The systems' own
// states are read as they document them: a failed payment ends its purchase (nothing taken,
// the offer closed), a payment given back in part outside the bot is recorded and owed back for
// the rest, a payment the system states doubtfully (eSewa's COMPLETE for another amount) is set
// aside for a person, and an offer still unsettled a while after it could no longer be paid is
// raised once to the operators while it is still looked up.

import { CheckThrottle } from "./check-throttle.js";
import type { OutcomeTeller } from "./outcomes.js";
import {
  completeMobile,
  impossibleAmount,
  nextLateLook,
  type OfferRef,
  type PaymentAlarm,
  type PaymentJournal,
  type PaymentLedger,
  type PaymentLookup,
  type PaymentOffer,
  type PaymentReceipt,
  PaymentRefused,
  type PaymentSystem,
  type PaymentSystems,
  type PendingKind,
  type ReceivedPayment,
  type Refund,
  type SetAside,
  toMinorUnits,
  watchedUntil,
} from "./payment.js";
import type { Clock, Log } from "./ports.js";
import {
  type Claim,
  type PaymentMethod,
  type Purchase,
  type PurchasePayment,
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
  /**
   * A pre-checkout this close to the window's end is refused (PAYMENT_CLOSING_SECONDS): a
   * payment approved then could complete after the window, when the bot would have said
   * "nothing was charged". 0 by default.
   */
  closingMs?: number;
  /**
   * A purchase paid by a confirmation the system pushes (Telegram's successful_payment, whose
   * charge may complete a while after the pre-checkout approved it) ends "not paid" only this
   * long after its window (TELEGRAM_PAYMENT_GRACE_SECONDS). 0 by default.
   */
  graceMs?: number;
  /**
   * An offer is asked on demand ("I have paid", the pages) at most once this long
   * (RETURN_PAGE_LOOKUP_MS); 0 when absent: every time.
   */
  askIntervalMs?: number;
}

/** Watched offers looked up per pass. */
const OFFERS_PER_PASS = 20;
/**
 * An offer its system has not settled this long after it could no longer be paid is raised to
 * the operators (once): eSewa advises its status check when no answer came within five minutes;
 * twice that, so that a short outage of a system at an offer's expiry raises nothing.
 */
const UNSETTLED_AFTER_MS = 10 * 60_000;
/** Why an offer is raised as unsettled, by what its system last said. */
const UNSETTLED_REASONS: Record<PendingKind | "no-answer", string> = {
  held: "the payment system still holds the payment unsettled after the offer could no longer be paid",
  unfinished:
    "the payment system still says the payment was started and not finished after the offer could no longer be paid",
  "no-answer":
    "the payment system gave no readable answer about the payment after the offer could no longer be paid",
};

/**
 * What "I have paid" (or a return page) found when it asked the payment system: "refund" is a
 * payment taken on the offer that pays for nothing (the purchase was paid otherwise, another
 * amount): owed back; "checking": the system's answer could not be recorded as it came (set
 * aside): a person checks it; "pending": the system holds the payment, "unfinished": it says the
 * payment was started and not finished (eSewa's PENDING); "failed": the payment failed at the
 * system (nothing taken); "refunded": the system gave it back in full; "part-refunded": it gave
 * part of it back, and the rest is being refunded.
 */
export type CheckOutcome =
  | "paid"
  | "refund"
  | "waiting"
  | "pending"
  | "unfinished"
  | "ended"
  /** The bot's time to pay is over; the payment system has not ended the offer and may still take it. */
  | "window-over"
  | "failed"
  | "refunded"
  | "part-refunded"
  | "unknown"
  | "not-found"
  | "checking";

/** What a reference a person gave /refunded names, and what became of it. */
export type ReferenceSettlement =
  /** The one refund owed by it, now marked done. */
  | { kind: "refunded"; refund: Refund }
  /** The one payment set aside by it, now closed. */
  | { kind: "closed"; setAside: SetAside }
  /** The one refund owed by it is being refunded through its system's API: nothing recorded. */
  | { kind: "automatic"; refund: Refund }
  /** Several: each by its method and charge id, for the person to name one. */
  | { kind: "ambiguous"; matches: { method: string; chargeId: string }[] }
  /** None owed or open by it (unknown, or done before). */
  | { kind: "none" };

/** What became of a payment confirmation handed to `receive`. */
export type Received = PaymentReceipt["kind"] | "kept" | "set-aside";

/** The purchase moved on (Cancel, a switch) while its offer was being made. */
class OfferOvertaken extends Error {
  override name = "OfferOvertaken";
}

export type OpenOutcome =
  | { kind: "offered"; purchase: Purchase }
  /** This very intent was taken already (double tap, duplicate update, replay). */
  | { kind: "duplicate" }
  /** This intent's purchase no longer waits for a payment (paid, or ended): a stale menu. */
  | { kind: "closed" }
  /** The price cannot be asked in the currency's minor units. */
  | { kind: "unpayable" }
  /** The purchase could not be recorded, or the invoice not sent: nothing can be paid. */
  | { kind: "unavailable" };

/** Why a payment about to be made is refused; each is said to the payer in their language. */
export type PaymentRefusal =
  | "unknown-payment"
  /** Someone else's invoice (a forwarded copy): only the buyer pays for their purchase. */
  | "not-buyer"
  | "amount-differs"
  | "payment-expired"
  /** The window's last moments: a payment approved now could complete after it. */
  | "payment-closing"
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

/** What a check says while the payment system may still say something new: asked again later. */
const UNSETTLED_CHECKS: ReadonlySet<CheckOutcome> = new Set([
  "waiting",
  "pending",
  "unfinished",
  "unknown",
]);

/** The purchase's recorded payment is the one taken on this offer. */
const paidBy = (purchase: Purchase, offer: OfferRef): boolean => {
  const payment = purchase.payment;
  return (
    payment?.charge !== undefined &&
    payment.method === offer.method &&
    (payment.offer === offer.handle || payment.charge.id === offer.handle)
  );
};

export class PaymentService {
  /** Whether the journal may hold confirmations (replayed until it is empty). */
  private journaled = false;
  private readonly replays: WriteBehind;
  /** Paid top-ups under way. */
  private readonly running: TaskGroup;
  /** Purchases whose buyer was told their payment is held (Pending). */
  private readonly saidPending = new Set<string>();
  /** Watched offers found "not found" once at their last look: closed at a second answer. */
  private readonly notFoundOnce = new Set<string>();
  /** The methods offered, in the order of the buyer's buttons. */
  readonly methods: PaymentMethod[];
  /** The passes over withdrawn offers, every `checkMs` once started. */
  private sweep: { timer: NodeJS.Timeout; running: boolean } | undefined;
  /** Payments known set aside (method and charge id): a repeat is not written again. */
  private readonly setAsideSeen = new Set<string>();
  /** Confirmations kept nowhere that the operators were alerted about (by this process). */
  private readonly notKeptAlerted = new Set<string>();
  /** Offers raised as unsettled (method and handle), known to this process. */
  private readonly unsettledRaised = new Set<string>();
  /** The checks on demand ("I have paid", the pages), at most one an interval per offer. */
  private readonly asks: CheckThrottle<CheckOutcome>;

  constructor(
    private readonly book: PurchaseBook,
    private readonly ledger: PaymentLedger,
    private readonly journal: PaymentJournal,
    private readonly topups: TopupService,
    private readonly teller: OutcomeTeller,
    private readonly systems: PaymentSystems,
    private readonly refunds: RefundDesk,
    private readonly alarm: PaymentAlarm,
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
    this.asks = new CheckThrottle(options.askIntervalMs ?? 0, now);
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
    let offered: PaymentOffer;
    try {
      offered = await system.offer(purchase, async (handle, payableUntil) => {
        asked.offer = handle;
        asked.offerUntil = payableUntil;
        await this.book.commit(purchase, dueAt);
      });
    } catch (error) {
      // Moved on before the offer was recorded (Cancel, a switch): nothing went out.
      if (error instanceof StaleWriteError) throw new OfferOvertaken();
      throw error;
    }
    asked.offer = offered.handle;
    if (offered.message !== undefined) purchase.statusMessage = offered.message;
    try {
      await this.book.commit(purchase, dueAt);
    } catch (error) {
      if (!(error instanceof StaleWriteError)) throw error;
      await this.overtaken(purchase, system, offered, dueAt);
    }
  }

  /**
   * The purchase was written meanwhile (Cancel or a switch while the system made the offer, a
   * check): still awaiting this very offer, its message is written on the newer copy; otherwise
   * the offer that went out late is withdrawn (never left live in the chat; the ledger keeps
   * it watched) and nothing more is said: what moved the purchase on told the buyer.
   */
  private async overtaken(
    purchase: Purchase,
    system: PaymentSystem,
    offered: PaymentOffer,
    dueAt: number | undefined,
  ): Promise<void> {
    const now = await this.book.get(purchase.id);
    if (
      now?.phase === "awaiting-payment" &&
      now.payment?.method === system.method &&
      now.payment.offer === offered.handle
    ) {
      if (offered.message !== undefined) now.statusMessage = offered.message;
      await this.book.commit(now, dueAt);
      return;
    }
    if (offered.message !== undefined) {
      await system
        .withdraw({ ...purchase, statusMessage: offered.message })
        .catch((error: unknown) => {
          this.log.warn({ err: error, purchaseId: purchase.id }, "a late offer not withdrawn");
        });
    }
    throw new OfferOvertaken();
  }

  /** An invoice that never went out: the purchase ends here (if it was recorded at all). */
  private async notOffered(purchase: Purchase, error: unknown): Promise<OpenOutcome> {
    // Overtaken by Cancel or a switch: that told the buyer; "could not be prepared" would not be true.
    if (error instanceof OfferOvertaken) return { kind: "duplicate" };
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
    if (purchase?.buyer === intent.buyer && purchase.phase !== "awaiting-payment") {
      return { kind: "closed" };
    }
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
    delete asked.offerUntil;
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
   * buyer's language as their purchase has it, for a refusal's reason. `payer`: who is about
   * to pay, where the system says; anyone but the buyer is refused (in their own language).
   */
  async check(
    purchaseId: string,
    currency: string,
    minor: number,
    payer?: number,
  ): Promise<PaymentCheck> {
    let purchase: Purchase | null;
    try {
      purchase = await this.book.get(purchaseId);
    } catch {
      return { refusal: "ledger-unavailable" };
    }
    if (!purchase) return { refusal: "unknown-payment" };
    if (payer !== undefined && payer !== purchase.buyer) return { refusal: "not-buyer" };
    return { refusal: this.refusal(purchase, currency, minor), language: purchase.language };
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
    if (this.now() > purchase.payment.expiresAt - (this.options.closingMs ?? 0)) {
      return "payment-closing";
    }
    if (!this.topupsOpen()) return "topups-paused";
    return null;
  }

  /**
   * The payment system's confirmation: recorded before anything else, then topped up, or owed
   * back when it pays for nothing. While the ledger is away it is kept in the journal (the
   * top-up waits for the replay); throws ConfirmationNotKept when even that fails. One that
   * cannot be recorded as it came is set aside for a person ("set-aside"), never retried.
   */
  async receive(payment: ReceivedPayment): Promise<Received> {
    let recorded: PaymentReceipt | "set-aside";
    try {
      recorded = await this.record(payment);
    } catch (error) {
      await this.keep(payment, error);
      return "kept";
    }
    if (recorded === "set-aside") return recorded;
    await this.follow(payment, recorded);
    return recorded.kind;
  }

  /**
   * Into the ledger, or set aside when the amount is impossible or the ledger refuses it (a
   * refusal is no outage: asking again gets the same answer). Throws while the ledger is away.
   */
  private async record(payment: ReceivedPayment): Promise<PaymentReceipt | "set-aside"> {
    const impossible = impossibleAmount(payment.minor);
    if (impossible !== null) return this.setAside(payment, impossible);
    try {
      return await this.ledger.receivePayment(payment, this.options.lockTtlMs);
    } catch (error) {
      if (!(error instanceof PaymentRefused)) throw error;
      return this.setAside(payment, error.reason);
    }
  }

  /**
   * A payment that cannot be recorded as it came: set aside once per method and charge id (in
   * the ledger's place of its own; in a file beside the journal when the ledger refuses even
   * that), the operators alerted and the buyer told once, its purchase no longer waiting for it.
   * Throws while the ledger is away (the confirmation is then journaled as any other).
   */
  private async setAside(payment: ReceivedPayment, reason: string): Promise<"set-aside"> {
    const purchase = await this.book.get(payment.purchaseId).catch(() => null);
    const key = `${payment.method}:${payment.charge.id}`;
    if (!this.setAsideSeen.has(key)) {
      const fresh = await this.setAsideOnce(payment, purchase?.buyer ?? null, reason);
      this.remember(key);
      if (fresh) await this.sayAside(fresh, purchase);
    }
    // The offer it came by is not awaited any more: nothing says "not paid" of it, and it is
    // not looked up again (its buyer was told that staff check it).
    if (purchase?.phase === "awaiting-payment" && purchase.payment?.method === payment.method) {
      await this.end(purchase, "amount-differs", true).catch((error: unknown) => {
        if (!(error instanceof StaleWriteError)) {
          this.log.warn({ err: error, purchaseId: purchase.id }, "could not end a purchase");
        }
      });
    }
    return "set-aside";
  }

  /** The row when new, null when set aside before; the file when the ledger refuses it too. */
  private async setAsideOnce(
    payment: ReceivedPayment,
    buyer: number | null,
    reason: string,
  ): Promise<SetAside | null> {
    try {
      return await this.ledger.setAside(payment, buyer, reason);
    } catch (error) {
      if (!(error instanceof PaymentRefused)) throw error;
      const why = `${reason}; the ledger refused to set it aside: ${error.reason}`;
      const fresh = await this.setAsideInFile(payment, why);
      return fresh ? fileSetAside(payment, buyer, why, this.now()) : null;
    }
  }

  /** Said once: the log, the operators, and the buyer when their purchase is known. */
  private async sayAside(aside: SetAside, purchase: Purchase | null): Promise<void> {
    this.log.error(
      { purchaseId: aside.purchaseId, chargeId: aside.chargeId, reason: aside.reason },
      "payment set aside for a person: it cannot be recorded as it came",
    );
    await this.alarm.setAside(aside).catch((error: unknown) => {
      this.log.warn({ err: error }, "could not alert the operators of a payment set aside");
    });
    if (!purchase) return;
    await this.alarm.tellBuyer(purchase.buyer, purchase.language).catch((error: unknown) => {
      this.log.warn({ err: error, purchaseId: purchase.id }, "could not tell a buyer");
    });
  }

  private async setAsideInFile(payment: ReceivedPayment, reason: string): Promise<boolean> {
    try {
      return await this.journal.setAside(payment, reason);
    } catch (failure) {
      throw new ConfirmationNotKept(failure);
    }
  }

  /** Bounded: a process meeting many anomalies forgets the oldest (the ledger still knows). */
  private remember(key: string, seen = this.setAsideSeen): void {
    if (seen.size >= 1_000) seen.clear();
    seen.add(key);
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
      this.alertNotKept(payment);
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

  /** Once per confirmation (the alarm says it once across replicas too), in the background. */
  private alertNotKept(payment: ReceivedPayment): void {
    const key = `${payment.method}:${payment.charge.id}`;
    if (this.notKeptAlerted.has(key)) return;
    if (this.notKeptAlerted.size >= 1_000) this.notKeptAlerted.clear();
    this.notKeptAlerted.add(key);
    this.running.track(
      this.alarm.notKept(payment).catch((error: unknown) => {
        this.log.warn({ err: error }, "could not alert the operators of a payment kept nowhere");
      }),
    );
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
        this.log.info({ purchaseId: payment.purchaseId, late: receipt.late }, "payment received");
        // In the background: the chat is not held while the provider is asked. A payment found
        // after its purchase ended is said first, then topped up (the receipt follows it).
        this.running.track(this.afterPayment(receipt.claim, payment.purchaseId, receipt.late));
        this.running.track(this.closePaid(payment.purchaseId));
    }
  }

  private async afterPayment(claim: Claim, purchaseId: string, late?: UnpaidReason) {
    if (late !== undefined) {
      const purchase = await this.book.get(purchaseId).catch(() => null);
      if (purchase) await this.teller.paidLate(purchase, late);
    }
    await this.topups.resolve(claim);
  }

  /**
   * The journal into the ledger (at start, then every `retryMs` while it holds any); what the
   * ledger took, or what was set aside, leaves the journal. Entries that cannot be believed
   * were moved to its quarantine by the read: the operators are told. A replay under way is
   * joined, not run twice.
   */
  private async replay(): Promise<void> {
    const kept = await this.readJournal();
    if (kept.length === 0) {
      this.journaled = false;
      return;
    }
    const written = new Set<string>();
    try {
      for (const payment of kept) {
        const recorded = await this.record(payment);
        written.add(payment.charge.id);
        if (recorded === "set-aside") continue;
        await this.follow(payment, recorded).catch((error: unknown) =>
          this.log.error({ err: error, purchaseId: payment.purchaseId }, "payment not followed"),
        );
      }
    } catch {
      // The ledger is still away: the rest waits for the next replay.
    } finally {
      if (written.size > 0) await this.journal.settle(written);
    }
    if (written.size === kept.length && (await this.readJournal()).length === 0) {
      this.journaled = false;
      this.log.info({ count: written.size }, "payments written after all");
    }
  }

  /** The journal's believable entries; the quarantined ones said to the operators. */
  private async readJournal(): Promise<ReceivedPayment[]> {
    const { payments, quarantined } = await this.journal.read();
    if (quarantined > 0) {
      this.log.error({ lines: quarantined }, "payment journal lines quarantined: not believed");
      await this.alarm.quarantined(quarantined).catch((error: unknown) => {
        this.log.warn({ err: error }, "could not alert the operators of a quarantine");
      });
    }
    return payments;
  }

  /** Payments set aside and still open, oldest first (/refunds). */
  setAsideOpen(count: number): Promise<SetAside[]> {
    return this.ledger.setAsideOpen(count);
  }

  /**
   * /refunded: a person settled by hand what this reference names (any reference /refunds
   * shows: the purchase id, the payment system's id or its other one). Exactly one refund owed
   * or one payment set aside is marked done; several are named back, none is said.
   */
  async settleByReference(
    reference: string,
    by: string,
    note: string | null,
  ): Promise<ReferenceSettlement> {
    const [owed, aside] = await Promise.all([
      this.ledger.refundsByReference(reference, 5),
      this.ledger.setAsideByReference(reference, 5),
    ]);
    const matches = [...owed, ...aside];
    if (matches.length > 1) {
      return {
        kind: "ambiguous",
        matches: matches.map(({ method, chargeId }) => ({ method, chargeId })),
      };
    }
    const [refund] = owed;
    if (refund) {
      // The bot is refunding it through the API: a person's refund too would pay it twice.
      if (this.refunds.refundingAutomatically(refund)) return { kind: "automatic", refund };
      const done = await this.refunds.markRefunded(refund.paymentId, by, note);
      return done ? { kind: "refunded", refund: done } : { kind: "none" };
    }
    const [open] = aside;
    if (!open) return { kind: "none" };
    const closed = await this.ledger.closeSetAside(open.method, open.chargeId, by, note);
    if (!closed) return { kind: "none" };
    this.log.info({ purchaseId: closed.purchaseId }, "payment set aside closed");
    return { kind: "closed", setAside: closed };
  }

  /**
   * Khalti's return page named the payer's mobile number, which Khalti asks for to refund a
   * bank payment (its lookup never gives it). The page comes through the buyer's browser, and
   * anyone holding the pidx can forge it, so the number is kept for the offer only:
   * - when complete (a masked one is of no use);
   * - with the transaction id that Khalti's own lookup gave the payment recorded on this offer:
   *   a page forged from the pidx alone (a forwarded link's) is ignored, and Khalti shows that id
   *   first to the payer's own browser, on this very redirect;
   * - the first time (never overwritten, so a later forgery cannot replace the payer's).
   * It is sent to Khalti only on a refund of that very transaction that Khalti refused for
   * lacking it (refunds.ts), never logged, and erased once the refund is done. Why it cannot
   * send money to an attacker: Khalti refunds the transaction it names, never an account the
   * bot picks; its documentation has the number be the one of the Khalti account the
   * transaction was paid through, which Khalti holds and checks (another number gets its field
   * error, as the sandbox answers), and any refusal leaves the refund to a person, who asks the
   * payer. The bot's own part: a forger would need the transaction id before the payer's
   * browser came back, and could not replace a number once kept.
   */
  async keepPayerMobile(offer: OfferRef, transactionId: string, mobile: string): Promise<void> {
    const complete = completeMobile(mobile);
    if (complete === null || !transactionId || offer.method !== "khalti") return;
    const kept = await this.ledger
      .keepPayerMobile(offer, transactionId, complete)
      .catch((error: unknown) => {
        this.log.warn({ err: error, purchaseId: offer.purchaseId }, "payer's mobile not kept");
        return false;
      });
    if (kept) this.log.info({ purchaseId: offer.purchaseId }, "payer's mobile number kept");
  }

  /** The buyer's language as their purchase has it; undefined when it cannot be read. */
  async languageOf(purchaseId: string): Promise<string | undefined> {
    return (await this.book.get(purchaseId).catch(() => null))?.language;
  }

  /** Waits for the top-ups under way (graceful shutdown). */
  drain(): Promise<void> {
    return this.running.drain();
  }

  /**
   * Whether the purchase of this intent waits for its payment ("awaiting"), no longer does
   * ("closed": paid, or ended), or is not there ("none": not confirmed yet, someone else's, or
   * the ledger could not say). For a menu's button before anything is offered again.
   */
  async stateOf(purchaseId: string, buyer: number): Promise<"none" | "awaiting" | "closed"> {
    const purchase = await this.book.get(purchaseId).catch(() => null);
    if (purchase?.buyer !== buyer) return "none";
    return purchase.phase === "awaiting-payment" ? "awaiting" : "closed";
  }

  /**
   * The Cancel under one offer: that purchase only, if it is the buyer's and still waits for its
   * payment. A payment already made is received, never cancelled away ("closed", as for a
   * purchase paid or ended before); "waiting" when its system could not say (asked again later).
   */
  async cancelOne(purchaseId: string, buyer: number): Promise<"cancelled" | "closed" | "waiting"> {
    const purchase = await this.book.get(purchaseId);
    if (purchase?.buyer !== buyer || purchase.phase !== "awaiting-payment") return "closed";
    if (await this.endUnlessMoved(purchase)) return "cancelled";
    const now = await this.book.get(purchaseId).catch(() => null);
    return now?.phase === "awaiting-payment" ? "waiting" : "closed";
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
   * Reconciliation's claim: an invoice whose window (and grace) has passed is withdrawn ("not
   * paid"); anything else is the top-up's.
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
      // A payment approved at the window's end may still be completing: it ends after a grace.
      const endsAt = (purchase.payment?.expiresAt ?? 0) + (this.options.graceMs ?? 0);
      if (this.now() < endsAt) await this.book.store.postpone(purchase, endsAt);
      else await this.teller.tell(await this.end(purchase, "expired"), true);
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
    const purchase = await this.book.get(purchaseId).catch(() => "away" as const);
    // The ledger away: told apart from a purchase it does not hold.
    if (purchase === "away") return "unknown";
    return this.checkPurchase(purchase);
  }

  /**
   * "I have paid": only the buyer's press asks the payment system, and at most once an interval
   * per offer (shared with its pages): a press while a check is under way gets its answer; one
   * after a check done within the interval asks nothing, and gets that answer when it was final
   * (paid, ended, set aside...: asking again changes nothing), else is told to wait ("too-soon").
   * A purchase the ledger could not read is "unknown", never "not found": the buyer may have
   * paid, and must not pay again.
   */
  async checkForBuyer(
    purchaseId: string,
    user: number,
  ): Promise<CheckOutcome | "not-yours" | "too-soon"> {
    const purchase = await this.book.get(purchaseId).catch(() => "away" as const);
    // The ledger away: told apart from a purchase it does not hold.
    if (purchase === "away") return "unknown";
    if (purchase && purchase.buyer !== user) return "not-yours";
    const asked = purchase?.payment;
    const key =
      asked?.offer === undefined ? `purchase:${purchaseId}` : offerKey(asked.method, asked.offer);
    const { outcome, recent } = this.asks.check(key, () => this.checkPurchase(purchase));
    if (!recent) return outcome;
    const last = await outcome;
    return UNSETTLED_CHECKS.has(last) ? "too-soon" : last;
  }

  /** Awaiting: its payment system asked; ended or paid: its offer asked (pages of its own). */
  private async checkPurchase(purchase: Purchase | null): Promise<CheckOutcome> {
    const asked = purchase?.payment;
    if (!purchase || !asked) return "not-found";
    if (purchase.phase === "awaiting-payment") return this.lookUp(purchase, false);
    // Ended because its payment was set aside: never "nothing was charged".
    if (purchase.phase === "unpaid" && (await this.wasSetAside(purchase))) return "checking";
    if (asked.offer === undefined) return settledCheck(purchase) ?? "waiting";
    return this.lookOffer({ purchaseId: purchase.id, method: asked.method, handle: asked.offer });
  }

  private wasSetAside(purchase: Purchase): Promise<boolean> {
    if (purchase.reason !== "amount-differs") return Promise.resolve(false);
    return this.ledger.hasSetAside(purchase.id).catch(() => false);
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
    const offer: OfferRef = {
      purchaseId: purchase.id,
      method: payment.method,
      handle: payment.offer ?? "",
    };
    let found: PaymentLookup;
    try {
      found = await system.lookup(purchase);
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "payment lookup failed");
      await this.book.store.postpone(purchase, this.nextCheck()).catch(() => undefined);
      await this.raiseIfUnsettled(purchase, offer, "no-answer");
      return "unknown";
    }
    // The system's own word that nothing more is taken on the offer (cancelled, expired, failed):
    // it is closed with its purchase, never looked up again.
    const endedBySystem = found.state === "ended";
    if (found.state === "not-found" || (found.state === "waiting" && !found.pending)) {
      // Not paid yet. Unpaid once the window has passed, at this lookup after it: until then the
      // system may just not show a new offer yet. Its offer stays watched until the system's
      // own expiry: a payment made on it after all is still found, and paid late.
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
        if (received !== "kept") await this.settledUnsettled(offer, "paid");
        if (received === "applied" || received === "kept") return "paid";
        if (received === "set-aside") return "checking";
        // Recorded before, or paying for nothing: an offer still awaiting after it was not paid
        // by it (another amount, owed back) and ends here; its payment is owed back.
        const now = await this.book.get(purchase.id);
        if (!now) return "paid";
        if (paidBy(now, offer)) return "paid";
        if (now.phase === "awaiting-payment") await this.end(now, "amount-differs", true);
        return "refund";
      }
      case "doubtful":
        // Set aside once (operators alerted, the buyer told that staff check it): it ends.
        this.saidPending.delete(purchase.id);
        return this.setAsideDoubtful(purchase, offer, found);
      case "refunded-in-part":
        this.saidPending.delete(purchase.id);
        return this.receivePartRefunded(purchase, offer, found);
      case "waiting":
        // Nothing new: only the next check time, and only if nothing else moved it meanwhile.
        await this.book.store.postpone(purchase, this.nextCheck());
        if (!found.pending) return "waiting";
        await this.raiseIfUnsettled(purchase, offer, found.pending);
        if (tellPending) await this.sayPending(purchase, found.pending);
        return found.pending === "unfinished" ? "unfinished" : "pending";
      case "ended": {
        this.saidPending.delete(purchase.id);
        const reason = found.failed ? "failed" : found.cancelled ? "cancelled" : "expired";
        const ended = await this.end(purchase, reason);
        if (endedBySystem) await this.closeEnded(offer);
        await this.teller.tell(ended);
        if (found.failed) return "failed";
        // Only the system's own word says its offer ended: otherwise it may still take a
        // payment, which is then topped up or refunded (never "nothing was charged").
        return endedBySystem ? "ended" : "window-over";
      }
      case "refunded":
        this.saidPending.delete(purchase.id);
        await this.refunds.refundedOutside(purchase);
        await this.teller.tell(await this.end(purchase, "refunded-outside"));
        await this.closeEnded(offer);
        return "refunded";
    }
  }

  /** The system said the offer ended: it is closed (nothing more to find on it). */
  private async closeEnded(offer: OfferRef): Promise<void> {
    await this.settledUnsettled(offer, "ended");
    await this.ledger.closeOffer(offer).catch((error: unknown) => {
      this.log.warn({ err: error, purchaseId: offer.purchaseId }, "an ended offer not closed");
    });
  }

  /**
   * A payment the system states doubtfully (eSewa's COMPLETE for another amount) is set aside
   * for a person, once; asked again while the ledger is away.
   */
  private async setAsideDoubtful(
    purchase: Purchase,
    offer: OfferRef,
    found: Extract<PaymentLookup, { state: "doubtful" }>,
  ): Promise<CheckOutcome> {
    try {
      await this.setAside(this.paymentOf(purchase, offer, found), found.reason);
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "a doubtful payment not set aside");
      return "unknown";
    }
    await this.ledger.closeOffer(offer);
    return "checking";
  }

  /** What the system stated of a payment on this offer, as a confirmation to record. */
  private paymentOf(
    purchase: Purchase,
    offer: OfferRef,
    found: { minor: number; charge: ReceivedPayment["charge"] },
  ): ReceivedPayment {
    return {
      method: offer.method,
      purchaseId: purchase.id,
      currency: purchase.payment?.currency ?? this.options.currency,
      minor: found.minor,
      charge: found.charge,
    };
  }

  /**
   * Paid, and part of it given back outside the bot before it paid for anything: recorded with
   * that, never topped up (partial money is no top-up), the rest owed back (refunds.ts: by the
   * system's API where it has one, else a person's), its buyer and the operators told; the
   * purchase ends when this offer was the one it awaited.
   */
  private async receivePartRefunded(
    purchase: Purchase,
    offer: OfferRef,
    found: Extract<PaymentLookup, { state: "refunded-in-part" }>,
  ): Promise<CheckOutcome> {
    const received = await this.receive({
      ...this.paymentOf(purchase, offer, found),
      refundedOutside: { minor: found.refundedMinor },
    });
    if (received === "set-aside") return "checking";
    // Kept in the journal: written, and owed back, at the replay; looked up again meanwhile.
    if (received === "kept") return "part-refunded";
    await this.settledUnsettled(offer, "paid, part given back outside the bot");
    const now = await this.book.get(purchase.id);
    const awaited = now?.payment;
    if (
      now?.phase === "awaiting-payment" &&
      awaited?.method === offer.method &&
      awaited.offer === offer.handle
    ) {
      // Its buyer was told by the refund owed (refunds.ts): the end says nothing more.
      await this.end(now, "refunded-outside", true);
    }
    await this.ledger.closeOffer(offer);
    return "part-refunded";
  }

  /**
   * An offer whose system still gave no final answer (it holds the payment, says it was started
   * and not finished, or gives no readable answer) a while after it could no longer be paid is
   * raised to the operators once (set aside as "unsettled", listed in /refunds); it is still
   * looked up, and closed by the bot when its system settles it.
   */
  private async raiseIfUnsettled(
    purchase: Purchase,
    offer: OfferRef,
    what: PendingKind | "no-answer",
  ): Promise<void> {
    const payment = purchase.payment;
    const key = `${offer.method}:${offer.handle}`;
    if (!payment || !offer.handle || this.unsettledRaised.has(key)) return;
    const until = await this.payableUntil(offer, payment);
    if (until === null || this.now() <= until + UNSETTLED_AFTER_MS) return;
    const asked = {
      minor: payment.minor,
      charge: { id: offer.handle, providerId: null, at: this.now() },
    };
    let raised: SetAside | null;
    try {
      raised = await this.ledger.setAside(
        this.paymentOf(purchase, offer, asked),
        purchase.buyer,
        UNSETTLED_REASONS[what],
        "unsettled",
      );
    } catch (error) {
      // Asked again at the next look.
      this.log.warn({ err: error, purchaseId: purchase.id }, "an unsettled offer not raised");
      return;
    }
    this.remember(key, this.unsettledRaised);
    if (!raised) return;
    this.log.warn(
      { purchaseId: purchase.id, method: offer.method, what },
      "offer still unsettled after it could no longer be paid: raised to the operators",
    );
    await this.alarm.setAside(raised).catch((error: unknown) => {
      this.log.warn({ err: error }, "could not alert the operators of an unsettled offer");
    });
  }

  /** The system settled an offer: one raised as unsettled is closed by the bot. */
  private async settledUnsettled(offer: OfferRef, what: string): Promise<void> {
    if (!offer.handle) return;
    const closed = await this.ledger
      .settleUnsettled(offer, `settled by the payment system: ${what}`)
      .catch(() => false);
    if (closed) this.log.info({ purchaseId: offer.purchaseId }, "an unsettled offer settled");
  }

  /**
   * Once (per process): the system holds the payment (the buyer must not pay again), or says it
   * was started and not finished.
   */
  private async sayPending(purchase: Purchase, how: PendingKind): Promise<void> {
    const system = this.systemOf(purchase);
    if (this.saidPending.has(purchase.id) || !system?.pending) return;
    this.saidPending.add(purchase.id);
    await system.pending(purchase, how).catch((error: unknown) => {
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
    this.closeOffers({ ...purchase }, false);
    return purchase;
  }

  /**
   * The purchase no longer waits for a payment: the chat stops offering anything for it (its
   * menu's other ways to pay; a paid invoice's Cancel). Cosmetic, in the background: it never
   * holds up a payment, a confirmation or a top-up, and a failure is only logged.
   */
  private closeOffers(purchase: Purchase, paid: boolean): void {
    const system = paid ? this.systemOf(purchase) : undefined;
    this.running.track(
      Promise.all([
        this.teller.closeMenu(purchase),
        system?.paid?.(purchase).catch((error: unknown) => {
          this.log.info({ err: error, purchaseId: purchase.id }, "could not close a paid offer");
        }),
      ]),
    );
  }

  /** Paid: its purchase read as the ledger now has it (the offer paid), then closed. */
  private async closePaid(purchaseId: string): Promise<void> {
    const purchase = await this.book.get(purchaseId).catch(() => null);
    if (purchase) this.closeOffers(purchase, true);
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

  /** Every `checkMs`, one pass over the watched offers due (one pass at a time). */
  private startSweep(): void {
    if (this.sweep || ![...this.systems.values()].some((system) => system.lookup)) return;
    const sweep = {
      running: false,
      timer: setInterval(() => {
        if (sweep.running) return;
        sweep.running = true;
        this.lookWatched()
          .catch((error: unknown) => this.log.warn({ err: error }, "watched offers not looked up"))
          .finally(() => {
            sweep.running = false;
          });
      }, this.options.checkMs),
    };
    sweep.timer.unref();
    this.sweep = sweep;
  }

  /**
   * One pass over the watched offers due, of the systems that must be asked (withdrawn by a
   * switch of method, or whose purchase ended unpaid): a payment made on one anyway pays for its
   * purchase if nothing else did (late, if it had ended), and is owed back otherwise.
   */
  async lookWatched(): Promise<void> {
    const methods = [...this.systems.values()].filter((s) => s.lookup).map((s) => s.method);
    const offers = await this.ledger.offersToLook(
      methods,
      OFFERS_PER_PASS,
      this.options.checkMs,
      this.now(),
    );
    for (const offer of offers) {
      await this.lookOffer(offer).catch((error: unknown) => {
        this.log.warn({ err: error, purchaseId: offer.purchaseId }, "watched offer not looked up");
      });
    }
  }

  /**
   * A page of an offer (Khalti's return page, eSewa's pages): the payment system is asked about
   * this very offer, whatever became of its purchase, at most once an interval per offer (shared
   * with "I have paid"; a load in between is told what the last check found). The purchase's
   * current offer while it awaits is checked as "I have paid" does.
   */
  checkOffer(purchase: Purchase, method: PaymentMethod, handle: string): Promise<CheckOutcome> {
    return this.asks.check(offerKey(method, handle), () =>
      this.checkOfferNow(purchase, method, handle),
    ).outcome;
  }

  private async checkOfferNow(purchase: Purchase, method: PaymentMethod, handle: string) {
    const current = purchase.payment;
    const live = purchase.phase === "awaiting-payment";
    if (live && current?.method === method && current.offer === handle) {
      return this.checkNow(purchase.id);
    }
    return this.lookOffer({ purchaseId: purchase.id, method, handle });
  }

  /**
   * The daily reconciliation found the payment on this offer neither topped up nor refunded: it
   * is asked again, and a payment found is received as any other. "applied": it pays for its
   * purchase now (topped up, late if it had ended); "stray": recorded and owed back; null when
   * nothing was settled (not paid any more, paid before, a system that cannot be asked, or one
   * that did not answer).
   */
  async settleOffer(offer: OfferRef): Promise<"applied" | "stray" | null> {
    // Only a system that can be asked says anything new (Telegram's confirmation is all there is).
    if (!this.systems.get(offer.method)?.lookup) return null;
    const before = await this.book.get(offer.purchaseId);
    if (!before?.payment || paidBy(before, offer)) return null;
    const outcome = await this.checkOfferNow(before, offer.method, offer.handle);
    if (outcome === "refund" || outcome === "part-refunded") return "stray";
    if (outcome !== "paid") return null;
    // "Paid" may mean kept in the journal only: settled once the ledger holds it (a next run).
    const after = await this.book.get(offer.purchaseId);
    return after && paidBy(after, offer) ? "applied" : null;
  }

  /**
   * One offer looked up by itself (a watched one, or a page's): paid is received like any
   * confirmation (the current offer's invoice then withdrawn if this one paid for a purchase
   * still awaiting). It is closed once paid and recorded, ended, or not paid at one last look
   * after its payable-until and its system's margin (unless the system holds a payment on it);
   * an unanswered lookup never closes it.
   */
  private async lookOffer(offer: OfferRef): Promise<CheckOutcome> {
    const system = this.systems.get(offer.method);
    const purchase = await this.book.get(offer.purchaseId);
    const payment = purchase?.payment;
    if (!purchase || !payment) {
      await this.ledger.closeOffer(offer);
      return "not-found";
    }
    if (paidBy(purchase, offer)) {
      // Its payment is recorded (pushed, or found by another look): nothing more to find.
      await this.ledger.closeOffer(offer);
      return "paid";
    }
    // A system that cannot be asked (Telegram's invoice, deleted when withdrawn): its purchase.
    if (!system?.lookup) return settledCheck(purchase) ?? "waiting";
    const looked = { ...payment, method: offer.method, offer: offer.handle };
    let found: PaymentLookup;
    try {
      found = await system.lookup({ ...purchase, payment: looked });
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "payment lookup failed");
      await this.raiseIfUnsettled(purchase, offer, "no-answer");
      return "unknown";
    }
    switch (found.state) {
      case "paid": {
        const received = await this.receive(this.paymentOf(purchase, offer, found));
        // Kept in the journal: written later, and looked up again meanwhile.
        if (received === "kept") return "paid";
        await this.settledUnsettled(offer, "paid");
        await this.ledger.closeOffer(offer);
        if (received === "set-aside") return "checking";
        const now = await this.book.get(purchase.id);
        if (received === "applied" && purchase.phase === "awaiting-payment") {
          // The offer the buyer switched to cannot be paid any more (a Telegram invoice).
          if (payment.offer !== undefined) {
            await this.systemOf(purchase)
              ?.withdraw(purchase)
              .catch(() => undefined);
          }
        }
        return now && paidBy(now, offer) ? "paid" : "refund";
      }
      case "doubtful":
        return this.setAsideDoubtful(purchase, offer, found);
      case "refunded-in-part":
        return this.receivePartRefunded(purchase, offer, found);
      case "waiting":
        if (found.pending) {
          await this.raiseIfUnsettled(purchase, offer, found.pending);
          return found.pending === "unfinished" ? "unfinished" : "pending";
        }
        if (!(await this.lastLook(offer, payment))) return "waiting";
        break;
      case "not-found": {
        if (!(await this.lastLook(offer, payment))) return "waiting";
        // One "no such offer" may be something else's 404 on the way (a gateway's JSON error):
        // the offer is closed at a second one, a look later.
        const key = offerKey(offer.method, offer.handle);
        if (!this.notFoundOnce.delete(key)) {
          this.notFoundOnce.add(key);
          return "waiting";
        }
        break;
      }
      case "ended":
        await this.closeEnded(offer);
        return found.failed ? "failed" : "ended";
      case "refunded":
        await this.closeEnded(offer);
        return "refunded";
    }
    await this.settledUnsettled(offer, "not paid");
    await this.ledger.closeOffer(offer);
    return "ended";
  }

  /**
   * Whether this look (read after the system's answer) is the offer's last: its watch is over,
   * its system's margin after its payable-until included (`watchedUntil`: our clock may run ahead
   * of the system's, or the system states no expiry). Not when it cannot be read. In the margin,
   * the next look is put off (`nextLateLook`): a long margin does not hammer the system.
   */
  private async lastLook(offer: OfferRef, payment: PurchasePayment): Promise<boolean> {
    const until = await this.payableUntil(offer, payment);
    if (until === null) return false;
    const end = watchedUntil(until, this.systems.get(offer.method));
    const now = this.now();
    if (now > end) return true;
    if (now > until) {
      const at = nextLateLook(now, until, end, this.options.checkMs);
      await this.ledger.lookOfferAt(offer, at).catch((error: unknown) => {
        this.log.info({ err: error, purchaseId: offer.purchaseId }, "next look not put off");
      });
    }
    return false;
  }

  /**
   * Until when the payment system takes a payment on this offer: its payable-until as the
   * ledger has it, else the one its purchase was offered with, else the purchase's window;
   * null when the ledger cannot be read.
   */
  private async payableUntil(offer: OfferRef, payment: PurchasePayment): Promise<number | null> {
    let until = offer.payableUntil;
    if (until === undefined) {
      try {
        until = await this.ledger.offerPayableUntil(offer);
      } catch {
        return null;
      }
    }
    const current = payment.offer === offer.handle ? payment.offerUntil : undefined;
    return until ?? current ?? payment.expiresAt;
  }
}

/** One offer, as the checks on demand are throttled by. */
const offerKey = (method: PaymentMethod, handle: string) => `${method}:${handle}`;

/** A payment set aside in the file, as the ledger would have listed it. */
function fileSetAside(
  payment: ReceivedPayment,
  buyer: number | null,
  reason: string,
  at: number,
): SetAside {
  return {
    kind: "payment",
    method: payment.method,
    purchaseId: payment.purchaseId,
    buyer,
    currency: payment.currency,
    amount: String(payment.minor),
    chargeId: payment.charge.id,
    providerChargeId: payment.charge.providerId,
    reason,
    setAsideAt: at,
  };
}
