// Finance reports for the admins: what the purchases of a period add up to, read from the
// ledger (never from Redis: the ledger is the record of money). A purchase belongs to the day
// it was confirmed on (its creation), counted in the provider's time zone.
import type { ServiceKind } from "./model.js";
import type { Amount } from "./money.js";
import type { PaymentMethod } from "./purchase.js";
import type { Outcome as ReportOutcome } from "./purchase-machine.js";

/** Calendar days in the provider's zone, ISO ("2026-11-01"), both included. */
export interface ReportPeriod {
  first: string;
  last: string;
}

/** What became of a purchase, as a report counts it: the machine's one word for it. */
export { OUTCOMES as REPORT_OUTCOMES, type Outcome as ReportOutcome } from "./purchase-machine.js";

/** A count and the exact sum of the amounts counted. */
export interface Totals {
  count: number;
  sum: Amount;
}

/** The outcomes counted per payment method: money taken, and what became of it. */
export const METHOD_OUTCOMES = [
  "charged",
  "refund-due",
  "refunded",
] as const satisfies readonly ReportOutcome[];
export type MethodOutcome = (typeof METHOD_OUTCOMES)[number];

/** One payment method's purchases of the period, by those outcomes. */
export interface MethodTotals {
  /** Null: purchases that asked for no payment (PAYMENT_MODE=none, the agents' top-ups). */
  method: PaymentMethod | null;
  outcomes: Record<MethodOutcome, Totals>;
}

/** How many bouquets the summary ranks. */
export const BEST_SELLERS = 10;

export interface ReportSummary {
  /** The period's purchases by outcome; the charged amount for charged ones, the price otherwise. */
  outcomes: Record<ReportOutcome, Totals>;
  /** Charged purchases by service. */
  services: Record<ServiceKind, Totals>;
  /** The best-selling bouquets (charged), most sold first. */
  bouquets: (Totals & { code: string; name: string })[];
  /**
   * By payment method (the applied payment's, else the one the purchase asked for), each with
   * a purchase in one of METHOD_OUTCOMES; amounts as in `outcomes`.
   */
  methods: MethodTotals[];
  /**
   * Purchases open right now, whatever their day: awaiting payment, paid, created, token
   * taken, requested, unknown.
   */
  open: Totals;
}

/** A sum of payments in one currency, exactly (from the payments' minor units). */
interface Money {
  currency: string;
  sum: Amount;
}

/** A count of payments and their sums, one per currency (none when the count is zero). */
export interface PaymentTotals {
  count: number;
  sums: Money[];
}

/** What was paid in the bot (PAYMENT_MODE=telegram): all zero when nobody pays here. */
export interface PaymentSummary {
  /** Payments received on the period's days, whatever they paid for. */
  received: PaymentTotals;
  /** Of those, owed back and not refunded yet. */
  refundDue: PaymentTotals;
  /** Of those, refunded. */
  refunded: PaymentTotals;
  /** Owed back right now, whatever the day they were received. */
  refundsDueNow: PaymentTotals;
  /**
   * Mismatch: received on the period's days, longer than the verify window ago, yet neither
   * paying for a charged top-up nor owed back.
   */
  unsettled: PaymentTotals;
  /** Mismatch: the period's purchases charged though they asked for a payment and have none. */
  chargedUnpaid: Totals;
}

/** Whether a payment was given back: none (it paid for its top-up), due or refunded. */
export type RefundState = "none" | "due" | "refunded";

/** A purchase's own payment, as the report's file lists it. */
export interface RowPayment {
  method: PaymentMethod;
  /** The amount received; null until paid. */
  paid: Amount | null;
  chargeId: string | null;
  providerChargeId: string | null;
  /** Null until paid. */
  refund: RefundState | null;
}

/** One purchase as the report's file lists it: no customer name, no phone number. */
export interface ReportRow {
  id: string;
  /** When it was confirmed (epoch ms). */
  at: number;
  buyer: number;
  customerId: string;
  service: ServiceKind;
  connectionId: string;
  bouquetCode: string;
  bouquetName: string;
  amount: Amount;
  checkoutId: string | null;
  txnId: string | null;
  reference: string | null;
  outcome: ReportOutcome;
  /** Null when the purchase asked for no payment (PAYMENT_MODE=none). */
  payment: RowPayment | null;
}

/** The charged sum of one day. */
export interface DaySales {
  day: string;
  sum: Amount;
}

/** The ledger, as reports read it (adapters/ledger/reports.ts). */
export interface ReportSource {
  /** Counted and summed by the database. */
  summary(period: ReportPeriod): Promise<ReportSummary>;
  /**
   * The payments of the period, counted and summed by the database; a payment received before
   * `settledBefore` (epoch ms: now less the verify window) should be settled by now.
   */
  payments(period: ReportPeriod, settledBefore: number): Promise<PaymentSummary>;
  /** The period's purchases, oldest first, read a page at a time as they are consumed. */
  rows(period: ReportPeriod): AsyncIterable<ReportRow>;
  /** Every day of the period with its charged sum (zero when nothing was sold). */
  dailySales(period: ReportPeriod): Promise<DaySales[]>;
}

export type DailyReportClaim =
  /** This caller sends it now; the claim lapses by itself if it never says "sent". */
  | "claimed"
  /** Another caller holds the claim: look again later. */
  | "taken"
  | "sent";

/** Which daily reports went out to whom, across instances and restarts. */
export interface DailyReportMarks {
  claim(day: string, admin: number, leaseMs: number): Promise<DailyReportClaim>;
  markSent(day: string, admin: number): Promise<void>;
}
