// The sandbox's mutable world: customers with their subscriptions, issued checkout tokens,
// executed top-ups and the record of received requests. Everything the operations change
// goes through here, so reset() can rebuild it from the seed in one place.

import { randomBytes } from "node:crypto";
import { DateTime, type DurationLike } from "luxon";
import { type CatalogueBouquet, findBouquet } from "./bouquets.js";
import { CUSTOMER_SEEDS, type CustomerSeed } from "./data.js";
import { formatWallClock } from "./time.js";
import type {
  ApiVersion,
  DirectoryEntry,
  RecordedRequest,
  SandboxTransaction,
  ServiceKind,
} from "./types.js";

interface SubscriptionState {
  code: string;
  name: string;
  start: Date;
  end: Date;
}

export interface ConnectionState {
  service: ServiceKind;
  id: string;
  status: string;
  subscriptions: SubscriptionState[];
}

export interface CustomerState {
  cuid: string;
  firstName: string;
  lastName: string;
  status: string;
  mobile: string;
  note: string;
  connections: ConnectionState[];
}

export interface CheckoutState {
  id: string;
  cuid: string;
  /** The connection it was issued for (its service and id are the binding). */
  connection: ConnectionState;
  expiresAt: Date;
}

export interface TopupInput {
  checkout: CheckoutState;
  bouquet: CatalogueBouquet;
  version: ApiVersion;
  udf1: string | undefined;
  udf2: string | undefined;
  now: Date;
}

const PERIOD_LENGTH: Record<string, DurationLike> = {
  MONTHLY: { months: 1 },
  QUARTERLY: { months: 3 },
  "HALF YEARLY": { months: 6 },
  YEARLY: { months: 12 },
};
/** For a bouquet whose name carries no recognised period. */
const FALLBACK_LENGTH: DurationLike = { days: 30 };

/** The catalogue's names end with their period in capitals in parentheses. */
function periodLength(bouquetName: string): DurationLike {
  const period = /\(([A-Z ]+)\)\s*$/.exec(bouquetName)?.[1] ?? "";
  return PERIOD_LENGTH[period] ?? FALLBACK_LENGTH;
}

/** Digits of a phone-like code without the 977 country code; null when it is not phone-like. */
function normaliseMobile(code: string): string | null {
  if (!/^\+?[\d\s()-]+$/.test(code)) return null;
  const digits = code.replace(/\D/g, "");
  return digits.length === 13 && digits.startsWith("977") ? digits.slice(3) : digits;
}

export class SandboxState {
  customers: CustomerState[] = [];
  readonly checkouts = new Map<string, CheckoutState>();
  /** Executed top-ups by checkout id (= orderId). */
  readonly transactions = new Map<string, SandboxTransaction>();
  readonly topups: SandboxTransaction[] = [];
  readonly requests: RecordedRequest[] = [];
  /** Not reset with the data, so a txnId stays unique for the sandbox's whole life. */
  private txnCounter = 0;

  constructor(
    private readonly timeZone: string,
    now: Date,
  ) {
    this.reset(now);
  }

  reset(now: Date): void {
    this.customers = CUSTOMER_SEEDS.map((seed) => this.seedCustomer(seed, now));
    this.checkouts.clear();
    this.transactions.clear();
    this.topups.length = 0;
    this.requests.length = 0;
  }

  format(at: Date): string {
    return formatWallClock(at, this.timeZone);
  }

  /** By cuid, STB number, username or mobile number, in that order. */
  findByCode(rawCode: string): CustomerState | undefined {
    const code = rawCode.trim();
    const mobile = normaliseMobile(code);
    return (
      this.findCustomer(code) ??
      this.customers.find((c) => c.connections.some((connection) => connection.id === code)) ??
      (mobile ? this.customers.find((c) => c.mobile === mobile) : undefined)
    );
  }

  findCustomer(cuid: string): CustomerState | undefined {
    return this.customers.find((customer) => customer.cuid === cuid);
  }

  issueCheckout(cuid: string, connection: ConnectionState, expiresAt: Date): string {
    const id = randomBytes(16).toString("hex");
    this.checkouts.set(id, { id, cuid, connection, expiresAt });
    return id;
  }

  /** Consumes the checkout, records the transaction and extends the subscription. */
  topUp(input: TopupInput): SandboxTransaction {
    const { checkout, bouquet, now } = input;
    this.txnCounter += 1;
    const transaction: SandboxTransaction = {
      orderId: checkout.id,
      txnId: `TXN${String(this.txnCounter).padStart(12, "0")}`,
      cuid: checkout.cuid,
      reqId: checkout.connection.id,
      bouquetId: bouquet.code,
      amt: bouquet.price,
      txnDate: this.format(now),
      status: "success",
      service: checkout.connection.service,
      version: input.version,
      udf1: input.udf1,
      udf2: input.udf2,
    };
    this.transactions.set(checkout.id, transaction);
    this.topups.push(transaction);
    this.extendSubscription(checkout.connection, bouquet, now);
    return transaction;
  }

  directory(): DirectoryEntry[] {
    return this.customers.map((customer) => ({
      cuid: customer.cuid,
      name: `${customer.firstName} ${customer.lastName}`,
      mobile: customer.mobile,
      connections: customer.connections.map(({ service, id, status }) => ({ service, id, status })),
      status: customer.status,
      note: customer.note,
    }));
  }

  private extendSubscription(connection: ConnectionState, bouquet: CatalogueBouquet, now: Date) {
    const length = periodLength(bouquet.name);
    const current = connection.subscriptions.find((s) => s.code === bouquet.code);
    if (current) {
      const from = current.end > now ? current.end : now;
      current.end = this.plus(from, length);
      return;
    }
    connection.subscriptions.push({
      code: bouquet.code,
      name: bouquet.name,
      start: now,
      end: this.plus(now, length),
    });
  }

  /** Calendar arithmetic in the sandbox zone, so "one month" means what a customer expects. */
  private plus(at: Date, length: DurationLike): Date {
    return DateTime.fromJSDate(at, { zone: this.timeZone }).plus(length).toJSDate();
  }

  private seedCustomer(seed: CustomerSeed, now: Date): CustomerState {
    const today = DateTime.fromJSDate(now, { zone: this.timeZone }).startOf("day");
    return {
      ...seed,
      connections: seed.connections.map((connection) => ({
        ...connection,
        subscriptions: connection.subscriptions.map(({ code, endsInDays }) => {
          const bouquet = findBouquet(connection.service, code);
          if (!bouquet) throw new Error(`Seed subscription ${code} is not in the catalogue`);
          const end = today.plus({ days: endsInDays }).endOf("day").set({ millisecond: 0 });
          const start = end.minus(periodLength(bouquet.name)).plus({ seconds: 1 });
          return { code, name: bouquet.name, start: start.toJSDate(), end: end.toJSDate() };
        }),
      })),
    };
  }
}
