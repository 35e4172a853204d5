// The daily audit of the ledger against the outside parties (not reconciler.ts, which settles
// purchases whose top-up outcome is unknown). For one purchase, what the ledger says is compared
// with what each outside party answered; every disagreement is a finding with what to do next.
// Amounts are exact integers in minor units (paisa). Pure: the asking is done elsewhere.
import type { PurchasePhase } from "./purchase.js";

const FINDING_KINDS = [
  "paid-not-settled",
  "topped-up-unpaid",
  "amount-differs",
  "refunded-outside-only",
  "refunded-ledger-only",
  "rest-owed",
  "provider-charged-unexpectedly",
  "charged-not-executed",
  "payment-not-found",
  "paid-twice",
  "topped-up-twice",
  "not-asked",
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** What the ledger holds of one purchase. */
export interface LedgerSide {
  purchaseId: string;
  phase: PurchasePhase;
  /** The price the buyer was asked, in minor units. */
  priceMinor: bigint;
  /** Agent mode: the operator tops up on credit, no payment is expected. */
  agentMode: boolean;
  /**
   * Every payment the purchase offered or recorded: `recorded` when the ledger holds it as
   * received (at most one applied), else an offer (a Khalti link, an eSewa form) the buyer may
   * have paid without the ledger knowing.
   */
  payments: readonly {
    system: string;
    id: string;
    amountMinor: bigint;
    refunded: boolean;
    recorded: boolean;
    /** Recorded as given back in part outside the bot before it paid for anything. */
    refundedInPart?: boolean;
  }[];
  checkoutIds: readonly string[];
  /** The provider's transaction the ledger holds for it (a charged purchase's). */
  txnId?: string | null;
}

/** One outside party's answer about a payment: null when it could not be asked after retries. */
export type PaymentAnswer =
  | { asked: false; system: string; id: string; reason: string }
  | {
      asked: true;
      system: string;
      id: string;
      paid: boolean;
      refunded: boolean;
      amountMinor: bigint;
    };

export type ProviderAnswer =
  | { asked: false; checkoutId: string }
  | {
      asked: true;
      checkoutId: string;
      executed: boolean;
      amountMinor: bigint | null;
      /** The provider's transaction for this checkout token, when executed and stated. */
      txnId?: string | null;
    };

export interface Finding {
  purchaseId: string;
  kind: FindingKind;
  outsideIds: string;
  /**
   * The provider's transaction beside each checkout token the purchase took ("co1=TXN1
   * co2=none"; "?" when the provider could not be asked), and the ledger's own when it is none
   * of those ("ledger=TXN1").
   */
  providerTxns: string;
  ledgerMinor: bigint | null;
  outsideMinor: bigint | null;
  nextStep: string;
  /** Set when the bot settled it itself (a payment it had missed, now recorded): the note. */
  settled?: string;
}

const NEXT_STEP: Readonly<Record<FindingKind, string>> = {
  "paid-not-settled": "top up or refund the buyer",
  "topped-up-unpaid": "find the payment or recover the top-up",
  "amount-differs": "check the price and refund the difference",
  "refunded-outside-only": "record the refund in the ledger",
  "refunded-ledger-only": "refund the buyer at the payment system",
  "rest-owed": "refund the rest of the payment (/refunds), then /refunded",
  "charged-not-executed": "check the subscription at the provider; top up or refund",
  "payment-not-found": "check the payment at the payment system",
  "provider-charged-unexpectedly": "mark the purchase charged or recover the top-up",
  "paid-twice": "refund the second payment",
  "topped-up-twice": "recover the second top-up",
  "not-asked": "run the reconciliation of this day again",
};

const SETTLED: ReadonlySet<PurchasePhase> = new Set(["charged", "refunded", "refund-due"]);

export function compare(
  ledger: LedgerSide,
  payments: readonly PaymentAnswer[],
  provider: readonly ProviderAnswer[],
): Finding[] {
  const findings: Finding[] = [];
  const providerTxns = transactionsOf(ledger, provider);
  const add = (
    kind: FindingKind,
    outsideIds: string,
    ledgerMinor: bigint | null,
    outsideMinor: bigint | null,
  ) =>
    findings.push({
      purchaseId: ledger.purchaseId,
      kind,
      outsideIds,
      providerTxns,
      ledgerMinor,
      outsideMinor,
      nextStep: NEXT_STEP[kind],
    });

  for (const answer of [...payments, ...provider]) {
    if (!answer.asked)
      add(
        "not-asked",
        "system" in answer ? `${answer.system}:${answer.id}` : `provider:${answer.checkoutId}`,
        null,
        null,
      );
  }
  const paidOutside = payments.filter((p) => p.asked && p.paid);
  const executed = provider.filter((p) => p.asked && p.executed);
  const recorded = new Map(
    ledger.payments.filter((p) => p.recorded).map((p) => [`${p.system}:${p.id}`, p]),
  );
  for (const answer of payments) {
    const mine = answer.asked ? recorded.get(`${answer.system}:${answer.id}`) : undefined;
    if (answer.asked && mine && !answer.paid)
      add("payment-not-found", `${answer.system}:${answer.id}`, mine.amountMinor, null);
  }

  if (paidOutside.length > 1)
    add(
      "paid-twice",
      paidOutside.map((p) => `${p.system}:${p.id}`).join(" "),
      ledger.priceMinor,
      null,
    );
  if (executed.length > 1)
    add(
      "topped-up-twice",
      executed.map((p) => `provider:${p.checkoutId}`).join(" "),
      ledger.priceMinor,
      null,
    );

  for (const answer of paidOutside) {
    if (!answer.asked) continue;
    const key = `${answer.system}:${answer.id}`;
    const mine = recorded.get(key);
    if (
      answer.amountMinor !== ledger.priceMinor ||
      (mine && mine.amountMinor !== answer.amountMinor)
    ) {
      add("amount-differs", key, mine?.amountMinor ?? ledger.priceMinor, answer.amountMinor);
    }
    if (answer.refunded && mine?.refundedInPart && !mine.refunded) {
      // Given back in part outside the bot, as the ledger records it: the rest is still owed.
      add("rest-owed", key, mine.amountMinor, answer.amountMinor);
    } else if (answer.refunded && !(mine?.refunded || ledger.phase === "refunded")) {
      add("refunded-outside-only", key, null, answer.amountMinor);
    }
    if (!answer.refunded && mine?.refunded)
      add("refunded-ledger-only", key, mine.amountMinor, answer.amountMinor);
    if (!answer.refunded && !SETTLED.has(ledger.phase) && executed.length === 0) {
      add("paid-not-settled", key, ledger.priceMinor, answer.amountMinor);
    }
  }
  for (const answer of executed) {
    if (!answer.asked) continue;
    const key = `provider:${answer.checkoutId}`;
    if (answer.amountMinor !== null && answer.amountMinor !== ledger.priceMinor)
      add("amount-differs", key, ledger.priceMinor, answer.amountMinor);
    if (
      ledger.phase === "not-charged" ||
      ledger.phase === "refunded" ||
      ledger.phase === "refund-due"
    ) {
      add("provider-charged-unexpectedly", key, ledger.priceMinor, answer.amountMinor);
    } else if (!ledger.agentMode && paidOutside.length === 0 && recorded.size === 0) {
      add("topped-up-unpaid", key, null, answer.amountMinor);
    }
  }
  // Told "done", but no checkout the purchase used holds a transaction (each one answered).
  if (
    ledger.phase === "charged" &&
    provider.length > 0 &&
    executed.length === 0 &&
    provider.every((answer) => answer.asked)
  ) {
    const ids = provider.map((p) => `provider:${p.checkoutId}`).join(" ");
    add("charged-not-executed", ids, ledger.priceMinor, null);
  }
  return findings;
}

/** Each checkout token with the provider's transaction for it, then the ledger's if another. */
function transactionsOf(ledger: LedgerSide, provider: readonly ProviderAnswer[]): string {
  const answers = new Map(provider.map((answer) => [answer.checkoutId, answer]));
  const named = new Set<string>();
  const pairs = ledger.checkoutIds.map((checkoutId) => {
    const answer = answers.get(checkoutId);
    if (!answer?.asked) return `${checkoutId}=?`;
    if (!answer.executed) return `${checkoutId}=none`;
    const txnId = answer.txnId ?? "?";
    named.add(txnId);
    return `${checkoutId}=${txnId}`;
  });
  if (ledger.txnId && !named.has(ledger.txnId)) pairs.push(`ledger=${ledger.txnId}`);
  return pairs.join(" ");
}

/** What a payment system says of one payment (thrown errors: it could not be asked). */
export interface PaymentRecord {
  paid: boolean;
  refunded: boolean;
  amountMinor: bigint;
}

/** What one day's run needs; the adapters give the ledger's rows and the outside calls. */
export interface DaySources {
  /** The day's purchases after `after` (by id, keyset), at most `limit`. */
  purchasesOfDay(day: string, after: string | null, limit: number): Promise<LedgerSide[]>;
  /** Whether `system` can be asked (Telegram Payments has no API: its confirmation is all). */
  canAsk(system: string): boolean;
  /** `amountMinor`: what was offered or recorded (eSewa's status check is asked with it). */
  askPayment(system: string, id: string, amountMinor: bigint): Promise<PaymentRecord>;
  askProvider(
    checkoutId: string,
  ): Promise<{ executed: boolean; amountMinor: bigint | null; txnId?: string | null }>;
  /** Paces and retries each call (paced-asking.ts). */
  ask<T>(call: () => Promise<T>): Promise<{ asked: true; answer: T } | { asked: false }>;
}

const PAGE = 200;

/** Every finding of `day`, page by page: memory bounded by a page whatever the day's size. */
export async function reconcileDay(
  day: string,
  sources: DaySources,
  found: (findings: readonly Finding[], lastPurchaseId: string) => Promise<void>,
  resumeAfter: string | null = null,
): Promise<void> {
  let after = resumeAfter;
  for (;;) {
    const page = await sources.purchasesOfDay(day, after, PAGE);
    for (const purchase of page) {
      const payments: PaymentAnswer[] = [];
      for (const p of purchase.payments) {
        if (!sources.canAsk(p.system)) {
          // No API to ask: the recorded confirmation is the system's own record, and an offer
          // never confirmed (an invoice not paid) has nothing to compare.
          if (!p.recorded) continue;
          payments.push({
            asked: true,
            system: p.system,
            id: p.id,
            paid: true,
            refunded: p.refunded,
            amountMinor: p.amountMinor,
          });
          continue;
        }
        const answer = await sources.ask(() => sources.askPayment(p.system, p.id, p.amountMinor));
        payments.push(
          answer.asked
            ? { asked: true, system: p.system, id: p.id, ...answer.answer }
            : { asked: false, system: p.system, id: p.id, reason: "unreachable" },
        );
      }
      const provider: ProviderAnswer[] = [];
      for (const checkoutId of purchase.checkoutIds) {
        const answer = await sources.ask(() => sources.askProvider(checkoutId));
        provider.push(
          answer.asked
            ? { asked: true, checkoutId, ...answer.answer }
            : { asked: false, checkoutId },
        );
      }
      await found(compare(purchase, payments, provider), purchase.purchaseId);
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) return;
    after = last.purchaseId;
  }
}
