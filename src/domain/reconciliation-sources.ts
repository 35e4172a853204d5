// Where a reconciliation run's answers come from: the ledger's purchases of a day, each payment
// system's own record (PaymentSystem.audit: Khalti's lookup, eSewa's status check; Telegram
// Payments has none) and the provider's txn-status, every call paced and retried. The
// provider's calls go to the provider itself, not through the top-ups' circuit breaker: a
// reconciliation that cannot reach it must not pause or alert the purchases.
import type { DaySources, LedgerSide, PaymentRecord } from "./daily-reconciliation.js";
import type { PacedAsker } from "./paced-asking.js";
import type { Log, ProviderPort } from "./ports.js";
import { ask, transactionState } from "./provider-answers.js";
import { parseMinorUnits } from "./provider-balance.js";

/** The ledger's side of a day (adapters/ledger/reconciliation-days.ts). */
export interface PurchaseDays {
  purchasesOfDay(day: string, after: string | null, limit: number): Promise<LedgerSide[]>;
}

/** A payment system's own record of one payment (PaymentSystem.audit). */
export type PaymentAudit = (handle: string, minor: number) => Promise<PaymentRecord>;

/** The provider has no answer yet, or could not be asked: asked again, then "not asked". */
class NoAnswerError extends Error {
  override name = "NoAnswerError";
}

export function daySources(
  days: PurchaseDays,
  audits: ReadonlyMap<string, PaymentAudit>,
  provider: Pick<ProviderPort, "txnStatus">,
  asker: PacedAsker,
  minorDigits: number,
  log: Log,
): DaySources {
  return {
    purchasesOfDay: (day, after, limit) => days.purchasesOfDay(day, after, limit),
    canAsk: (system) => audits.has(system),
    askPayment(system, id, amountMinor) {
      const audit = audits.get(system);
      if (!audit) return Promise.reject(new NoAnswerError(`${system} cannot be asked`));
      return audit(id, Number(amountMinor));
    },
    async askProvider(checkoutId) {
      const answer = await ask(
        () => provider.txnStatus(checkoutId),
        log,
        "reconciliation txn-status",
      );
      if (!answer.ok) {
        // The provider's own refusal: it holds no transaction for this token.
        if (answer.failure === "not-found") return { executed: false, amountMinor: null };
        throw new NoAnswerError(answer.failure);
      }
      const found = transactionState(answer.value);
      if (found.state === "pending") throw new NoAnswerError("pending");
      if (found.state === "failed") return { executed: false, amountMinor: null };
      const amount = answer.value.amount;
      return {
        executed: true,
        amountMinor: amount === null ? null : parseMinorUnits(amount, minorDigits),
        txnId: answer.value.txnId || null,
      };
    },
    ask: (call) => asker.ask(call),
  };
}
