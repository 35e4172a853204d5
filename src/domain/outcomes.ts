// The one place that tells a buyer how a purchase ended (the receipt, a decline, "nothing was
// charged", "still checking") and records that they were told, whoever learned the outcome:
// the purchase itself, reconciliation, another instance.
import { listedEnd } from "./listed-end.js";
import type { Log, ProviderPort } from "./ports.js";
import {
  isUntold,
  type Purchase,
  type PurchasePhase,
  StaleWriteError,
  type TellingHold,
  type UnpaidReason,
} from "./purchase.js";
import type { PurchaseBook } from "./purchase-book.js";
import { type SavedConnectionStore, shortCustomerName } from "./saved-connections.js";

/** Sends the outcome of a purchase to its buyer; throws when that fails. */
export interface OutcomeChannel {
  tell(purchase: Purchase): Promise<void>;
  /**
   * A payment arrived after the purchase had ended unpaid (`reason`): it is topped up now, the
   * receipt (or the refund, if it cannot be) follows.
   */
  paidLate?(purchase: Purchase, reason: UnpaidReason): Promise<void>;
  /**
   * The purchase no longer waits for a payment (paid, or ended unpaid): its menu's buttons that
   * offer other ways to pay (Purchase.menuMessage) are taken away.
   */
  closeMenu?(purchase: Purchase): Promise<void>;
}

/** What a charged purchase brings about besides its receipt; each is optional. */
export interface AfterCharge {
  /** Re-reads the renewed subscription's end for the receipt. */
  provider?: Pick<ProviderPort, "getPackages">;
  /** Where a connection topped up successfully is remembered for its buyer. */
  saved?: SavedConnectionStore;
}

/** What follows once a purchase was told; `tell` waits for it. */
export type ToldListener = (purchase: Purchase) => void | Promise<void>;

/**
 * Thrown by an OutcomeChannel when the buyer can never be messaged (they blocked the bot, or
 * deleted their account): telling is given up, not tried again for ever.
 */
export class BuyerUnreachableError extends Error {
  constructor(reason: string) {
    super(`the buyer cannot be messaged: ${reason}`);
    this.name = "BuyerUnreachableError";
  }
}

/**
 * How long a purchase is held while its outcome is told (renewed while held): as long as the
 * top-ups' lease by default (TOPUP_LOCK_SECONDS), what a dead holder's purchase waits.
 */
export const TELL_LEASE_MS = 15_000;

/** Purchases whose "reached" listeners ran here, remembered at most (then forgotten at once). */
const REACHED_KEPT = 10_000;

export class OutcomeTeller {
  private readonly listeners = new Map<PurchasePhase, ToldListener[]>();
  private readonly reachedListeners = new Map<PurchasePhase, ToldListener[]>();
  private readonly unreachableListeners: ToldListener[] = [];
  /** Purchase and phase whose "reached" listeners ran here and which are not told yet. */
  private readonly reached = new Set<string>();

  constructor(
    private readonly book: PurchaseBook,
    private readonly channel: OutcomeChannel,
    private readonly log: Log,
    private readonly after: AfterCharge = {},
  ) {}

  /**
   * True once told (or nothing to tell, or another tells it); false when the message failed:
   * told again later. Told once: under the purchase's lease, which a caller that holds it says
   * (`held`); any other takes it for the telling, and leaves the purchase to whoever holds it.
   */
  async tell(purchase: Purchase, held = false): Promise<boolean> {
    if (!isUntold(purchase)) return true;
    if (held) return this.tellHeld(purchase, true);
    let hold: TellingHold;
    try {
      hold = await this.book.store.holdToTell(purchase.id, purchase.phase, TELL_LEASE_MS);
    } catch (error) {
      // The ledger away: told all the same (twice at worst, never not at all).
      this.log.warn({ err: error, purchaseId: purchase.id }, "told without holding the purchase");
      hold = "elsewhere";
    }
    if (hold === "told") return true;
    if (hold === "held") {
      this.log.info({ purchaseId: purchase.id }, "an outcome left to the purchase's holder");
      return true;
    }
    if (hold === "elsewhere") return this.tellHeld(purchase, false);
    try {
      return await this.tellHeld(purchase, true);
    } finally {
      await hold.release().catch(() => undefined);
    }
  }

  /** Tells it; `holding` its lease, a newer phase found when marking it told is told too. */
  private async tellHeld(purchase: Purchase, holding: boolean): Promise<boolean> {
    const { provider } = this.after;
    if (purchase.phase === "charged" && purchase.renewedUntil === undefined) {
      purchase.renewedUntil = provider
        ? await listedEnd(
            provider,
            {
              cuid: purchase.customer.cuid,
              connection: purchase.connection,
              code: purchase.bouquet.code,
            },
            this.log,
            { purchaseId: purchase.id },
          )
        : null;
      // Written before the receipt goes out: its "Remind me" reads the end from the ledger. A
      // copy gone stale is told all the same, as below.
      await this.write(purchase);
    }
    // Saved before the receipt goes out: the buyer's next tap may be /topup.
    if (purchase.phase === "charged") await this.remember(purchase);
    let unreachable = false;
    try {
      await this.channel.tell(purchase);
    } catch (error) {
      if (!(error instanceof BuyerUnreachableError)) {
        this.log.warn(
          { err: error, purchaseId: purchase.id },
          "could not tell a purchase's outcome yet",
        );
        // What the phase starts does not wait for the buyer (a refund owed).
        await this.reach(purchase);
        return false;
      }
      // Never deliverable: marked told so that nobody retries it for ever; operators are told.
      this.log.warn({ purchaseId: purchase.id }, "the buyer cannot be messaged: outcome not told");
      unreachable = true;
    }
    const phase = purchase.phase;
    purchase.told = phase;
    // Told, but the purchase moved on meanwhile: its newer phase is told in its turn, here when
    // this holds its lease (whoever moved it found it held, and left it to the holder).
    let newer: Purchase | null = null;
    if (!(await this.write(purchase))) {
      this.log.info({ purchaseId: purchase.id }, "told a purchase that has moved on since");
      if (holding) newer = await this.book.store.get(purchase.id).catch(() => null);
    }
    await this.reach(purchase);
    this.reached.delete(`${purchase.id}:${phase}`);
    if (unreachable) for (const listener of this.unreachableListeners) await listener(purchase);
    for (const listener of this.listeners.get(phase) ?? []) await listener(purchase);
    if (newer && isUntold(newer)) return this.tellHeld(newer, true);
    return true;
  }

  /**
   * Runs the listeners of the phase a purchase reached, once per purchase and phase in this
   * process, at its first telling, whether or not the message went out. One that fails is run
   * again at the next telling.
   */
  private async reach(purchase: Purchase): Promise<void> {
    const listeners = this.reachedListeners.get(purchase.phase);
    const key = `${purchase.id}:${purchase.phase}`;
    if (!listeners || this.reached.has(key)) return;
    // Told by another process, a key stays: bounded, since what listens bears a second run.
    if (this.reached.size >= REACHED_KEPT) this.reached.clear();
    this.reached.add(key);
    try {
      for (const listener of listeners) await listener(purchase);
    } catch (error) {
      this.reached.delete(key);
      this.log.warn({ err: error, purchaseId: purchase.id }, "what follows an outcome failed");
    }
  }

  /**
   * Says that a payment came after its purchase had ended unpaid and is being topped up. Said
   * once, by whoever recorded the payment (the ledger applies it once); a failure to say it is
   * logged, and the receipt or the refund still follows.
   */
  async paidLate(purchase: Purchase, reason: UnpaidReason): Promise<void> {
    try {
      await this.channel.paidLate?.(purchase, reason);
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "could not say a late payment came");
    }
  }

  /**
   * Takes away the menu's other ways to pay of a purchase that no longer waits for a payment.
   * Cosmetic and best effort: a failure is logged, never thrown (the ledger decides, not this).
   */
  async closeMenu(purchase: Purchase): Promise<void> {
    if (purchase.menuMessage === undefined) return;
    try {
      await this.channel.closeMenu?.(purchase);
    } catch (error) {
      this.log.info({ err: error, purchaseId: purchase.id }, "could not close a purchase's menu");
    }
  }

  /**
   * `listener` runs each time a purchase in `phase` was told (or could never be: its buyer
   * unreachable): a charged one counts a renewal, an unknown one alerts operators. An event, not
   * a constructor argument: the refund desk that listens tells through this teller too.
   */
  whenTold(phase: PurchasePhase, listener: ToldListener): void {
    this.listeners.set(phase, [...(this.listeners.get(phase) ?? []), listener]);
  }

  /**
   * `listener` runs once a purchase reached `phase`, at its first telling, whether or not its
   * buyer could be told: what must not wait for the buyer (a refund owed starts; they may have
   * blocked the bot, or Telegram may be away). Once per purchase and phase in a process; run
   * again by another process that tells it (what listens must bear that: the refund desk does).
   */
  whenReached(phase: PurchasePhase, listener: ToldListener): void {
    this.reachedListeners.set(phase, [...(this.reachedListeners.get(phase) ?? []), listener]);
  }

  /** `listener` runs when a purchase's outcome can never be told (its buyer is unreachable). */
  whenUnreachable(listener: ToldListener): void {
    this.unreachableListeners.push(listener);
  }

  /** False when the purchase moved on since it was read (its newer phase is told in its turn). */
  private async write(purchase: Purchase): Promise<boolean> {
    try {
      await this.book.record(purchase);
      return true;
    } catch (error) {
      if (!(error instanceof StaleWriteError)) throw error;
      return false;
    }
  }

  /** Offered again on the buyer's next /topup; a failure here costs only that convenience. */
  private async remember(purchase: Purchase): Promise<void> {
    try {
      await this.after.saved?.remember(purchase.buyer, {
        customerName: shortCustomerName(purchase.customer.name),
        service: purchase.connection.service,
        connectionId: purchase.connection.id,
        ...(purchase.proved && { proved: true as const }),
      });
    } catch (error) {
      this.log.warn({ err: error, purchaseId: purchase.id }, "could not remember the connection");
    }
  }
}
