// Refunds a person makes outside the bot on a payment system that can be asked but publishes no
// refund API (eSewa): while one is owed, the system is asked about its payment every interval,
// and when its own check says the payment went back in full (eSewa's FULL_REFUND), the refund is
// closed as /refunded would close it: marked once in the ledger, the buyer told. A partial
// refund, an answer of anything else or a failed check leaves it owed, for a person.
import type { PaymentLedger, PaymentSystems, Refund } from "./payment.js";
import type { Log } from "./ports.js";
import type { PurchaseBook } from "./purchase-book.js";
import type { RefundDesk } from "./refunds.js";

/** Refunds owed looked at a pass, oldest first, on the watched systems only. */
const PER_PASS = 100;

export class RefundWatch {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    private readonly ledger: Pick<PaymentLedger, "refundsDue">,
    private readonly book: PurchaseBook,
    /** The systems watched: they can be asked, and refunds on them are made by hand. */
    private readonly systems: PaymentSystems,
    private readonly desk: Pick<RefundDesk, "markRefunded">,
    private readonly intervalMs: number,
    private readonly log: Log,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .catch((error: unknown) => this.log.warn({ err: error }, "owed refunds not checked"))
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Where the last pass stopped: the next one goes on from there, then starts over. */
  private cursor: Refund | undefined;

  /** One pass over the next page of the watched systems' refunds; how many it closed. */
  async runOnce(): Promise<number> {
    let closed = 0;
    const methods = [...this.systems.keys()];
    const page = await this.ledger.refundsDue(PER_PASS, { methods, after: this.cursor });
    this.cursor = page.length < PER_PASS ? undefined : page.at(-1);
    for (const refund of page) {
      const system = this.systems.get(refund.method);
      if (this.stopped || !system?.lookup || !refund.purchaseId) continue;
      const purchase = await this.book.get(refund.purchaseId);
      if (!purchase?.payment) continue;
      // The offer the refund's payment was made on (its charge id is the offer's handle), the
      // purchase's current one or one withdrawn when the buyer chose another method.
      const paid = { ...purchase.payment, method: refund.method, offer: refund.chargeId };
      const found = await system.lookup({ ...purchase, payment: paid }).catch(() => null);
      if (found?.state !== "refunded") continue;
      const by = `${refund.method}:status-check`;
      if (await this.desk.markRefunded(refund.paymentId, by, "refunded in full outside the bot")) {
        this.log.info({ purchaseId: purchase.id }, "refund found made by the payment system");
        closed++;
      }
    }
    return closed;
  }
}
