// What support staff look up, without Telegram: a customer with every connection and its
// current subscriptions, a transaction by checkout id or by our reference, and the latest
// top-ups made through the bot.
import { mapBounded } from "./bounded.js";
import { normalizeCustomerCode } from "./customer-code.js";

import type { Connection, Customer, Subscription, Transaction } from "./model.js";
import type { Log, ProviderPort } from "./ports.js";
import { ask } from "./provider-answers.js";
import type { Purchase, PurchaseStore } from "./purchase.js";

/** A support card's Refresh button: the code it looked up, and the group it was shown in. */
export interface LookupRef {
  code: string;
  group: number;
}

/** Short ids for Refresh buttons, so that no customer code sits in button data. */
export interface LookupRefStore {
  create(ref: LookupRef): Promise<string>;
  /** null once expired, or for an id that was never issued. */
  resolve(id: string): Promise<LookupRef | null>;
}

/** Package listings of one customer's connections run at most this many at a time. */
const PACKAGE_CALLS_AT_ONCE = 4;

export interface ConnectionDetails {
  connection: Connection;
  /** null when the provider could not list this connection's packages. */
  subscriptions: Subscription[] | null;
}

export interface CustomerDetails {
  customer: Customer;
  connections: ConnectionDetails[];
}

export type CustomerLookup =
  | { kind: "found"; details: CustomerDetails }
  | { kind: "not-found" }
  | { kind: "failed" };

/**
 * The customer a code names, with every connection's current subscriptions (one package
 * listing per connection, {@link PACKAGE_CALLS_AT_ONCE} at a time). A connection whose listing
 * fails is shown without subscriptions rather than failing the whole card.
 */
export async function lookUpCustomer(
  provider: ProviderPort,
  code: string,
  log: Log,
  concurrency = PACKAGE_CALLS_AT_ONCE,
): Promise<CustomerLookup> {
  const found = await ask(() => provider.getCustomer(code), log, "support customer lookup");
  if (!found.ok) return { kind: found.failure === "not-found" ? "not-found" : "failed" };
  const { customer } = found.value;
  const connections = await mapBounded(found.value.connections, concurrency, async (connection) => {
    const listed = await ask(
      () => provider.getPackages(customer.cuid, connection),
      log,
      "support package listing",
    );
    return { connection, subscriptions: listed.ok ? listed.value.subscriptions : null };
  });
  return { kind: "found", details: { customer, connections } };
}

export type TransactionLookup =
  /** The provider knows the transaction; `purchase` when it was made through the bot. */
  | { kind: "found"; transaction: Transaction; purchase: Purchase | null }
  /** Made through the bot, but the provider has no transaction for it, or could not be asked. */
  | { kind: "purchase-only"; purchase: Purchase; provider: "not-found" | "failed" }
  | { kind: "not-found" }
  | { kind: "failed" };

/**
 * Accepts a checkout id, our own reference (udf1), or the provider's transaction id from the
 * customer's receipt; the last two resolve through the purchase to its checkout id.
 */
export async function lookUpTransaction(
  purchases: PurchaseStore,
  provider: ProviderPort,
  query: string,
  log: Log,
): Promise<TransactionLookup> {
  const purchase =
    (await purchases.byReference(query)) ??
    (await purchases.byTransaction(query)) ??
    (await purchases.byCheckout(query));
  const checkoutId = purchase?.checkout?.id ?? query;
  const found = await ask(() => provider.txnStatus(checkoutId), log, "support transaction lookup");
  if (found.ok) return { kind: "found", transaction: found.value, purchase };
  const notFound = found.failure === "not-found";
  if (purchase) {
    return { kind: "purchase-only", purchase, provider: notFound ? "not-found" : "failed" };
  }
  return notFound ? { kind: "not-found" } : { kind: "failed" };
}

export type RecentLookup =
  | { kind: "found"; purchases: Purchase[] }
  | { kind: "not-found" }
  | { kind: "failed" };

/**
 * The latest top-ups through the bot, optionally of one customer: `code` is matched against
 * the purchases' customer id and connection first; otherwise the provider says whose it is.
 */
export async function recentTopups(
  purchases: PurchaseStore,
  provider: ProviderPort,
  code: string | undefined,
  limit: number,
  log: Log,
): Promise<RecentLookup> {
  if (code === undefined) return { kind: "found", purchases: await purchases.recent(limit) };
  const normalized = normalizeCustomerCode(code);
  const codes = normalized.ok ? [code, normalized.code] : [code];
  const direct = await purchases.recent(limit, { codes });
  if (direct.length > 0) return { kind: "found", purchases: direct };
  const found = await ask(
    () => provider.getCustomer(normalized.ok ? normalized.code : code),
    log,
    "support customer lookup",
  );
  if (!found.ok) return { kind: found.failure === "not-found" ? "not-found" : "failed" };
  const cuid = found.value.customer.cuid;
  return { kind: "found", purchases: await purchases.recent(limit, { codes: [cuid] }) };
}
