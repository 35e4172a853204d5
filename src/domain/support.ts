// What support staff look up, without Telegram: a customer with every connection and its
// current subscriptions, a transaction by checkout id or by our reference, and the latest
// top-ups made through the bot.
import { errorFields, type Logger } from "../logger.js";
import type { ProviderApi } from "../provider/client.js";
import { ProviderRejectedError } from "../provider/errors.js";
import { mapBounded } from "./bounded.js";
import { normalizeCustomerCode } from "./customer-code.js";
import type { Journal, JournalEntry } from "./journal.js";
import type { Connection, Customer, Subscription, Transaction } from "./model.js";

/** Package listings of one customer's connections run at most this many at a time. */
export const PACKAGE_CALLS_AT_ONCE = 4;

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
  provider: ProviderApi,
  code: string,
  logger: Logger,
  concurrency = PACKAGE_CALLS_AT_ONCE,
): Promise<CustomerLookup> {
  let info: Awaited<ReturnType<ProviderApi["getCustomer"]>>;
  try {
    info = await provider.getCustomer(code);
  } catch (error) {
    if (error instanceof ProviderRejectedError) return { kind: "not-found" };
    logger.warn(errorFields(error), "support customer lookup failed");
    return { kind: "failed" };
  }
  const connections = await mapBounded(info.connections, concurrency, async (connection) => {
    try {
      const offer = await provider.getPackages(info.customer.cuid, connection);
      return { connection, subscriptions: offer.subscriptions };
    } catch (error) {
      logger.warn(
        { ...errorFields(error), service: connection.service },
        "support package listing failed",
      );
      return { connection, subscriptions: null };
    }
  });
  return { kind: "found", details: { customer: info.customer, connections } };
}

export type TransactionLookup =
  /** The provider knows the transaction; `entry` when it was made through the bot. */
  | { kind: "found"; transaction: Transaction; entry: JournalEntry | null }
  /** Made through the bot, but the provider has no transaction for it, or could not be asked. */
  | { kind: "journal-only"; entry: JournalEntry; provider: "not-found" | "failed" }
  | { kind: "not-found" }
  | { kind: "failed" };

/** Accepts a checkout id, or our own reference (udf1) that the journal resolves to one. */
export async function lookUpTransaction(
  journal: Journal,
  provider: ProviderApi,
  query: string,
  logger: Logger,
): Promise<TransactionLookup> {
  const entry = (await journal.byReference(query)) ?? (await journal.get(query));
  const checkoutId = entry?.checkoutId ?? query;
  try {
    return { kind: "found", transaction: await provider.txnStatus(checkoutId), entry };
  } catch (error) {
    const notFound = error instanceof ProviderRejectedError;
    if (!notFound) logger.warn(errorFields(error), "support transaction lookup failed");
    if (entry) return { kind: "journal-only", entry, provider: notFound ? "not-found" : "failed" };
    return notFound ? { kind: "not-found" } : { kind: "failed" };
  }
}

export type RecentLookup =
  | { kind: "found"; entries: JournalEntry[] }
  | { kind: "not-found" }
  | { kind: "failed" };

const SCAN_PAGE = 100;
/** The journal's recent list keeps this many entries. */
const SCAN_MAX = 1_000;

/** The newest journal entries that pass `matches`, at most `limit`, newest first. */
export async function recentMatching(
  journal: Journal,
  limit: number,
  matches: (entry: JournalEntry) => boolean = () => true,
): Promise<JournalEntry[]> {
  const found: JournalEntry[] = [];
  for (let start = 0; start < SCAN_MAX && found.length < limit; start += SCAN_PAGE) {
    const page = await journal.recent(SCAN_PAGE, start);
    found.push(...page.filter(matches));
    if (page.length < SCAN_PAGE) break;
  }
  return found.slice(0, limit);
}

/**
 * The latest top-ups through the bot, optionally of one customer: `code` is matched against
 * the entries' customer id and connection first; otherwise the provider says whose it is.
 */
export async function recentTopups(
  journal: Journal,
  provider: ProviderApi,
  code: string | undefined,
  limit: number,
  logger: Logger,
): Promise<RecentLookup> {
  if (code === undefined) return { kind: "found", entries: await recentMatching(journal, limit) };
  const wanted = new Set([code.toLowerCase()]);
  const normalized = normalizeCustomerCode(code);
  if (normalized.ok) wanted.add(normalized.code.toLowerCase());
  const direct = await recentMatching(
    journal,
    limit,
    (entry) => wanted.has(entry.cuid.toLowerCase()) || wanted.has(entry.connectionId.toLowerCase()),
  );
  if (direct.length > 0) return { kind: "found", entries: direct };
  let cuid: string;
  try {
    cuid = (await provider.getCustomer(normalized.ok ? normalized.code : code)).customer.cuid;
  } catch (error) {
    if (error instanceof ProviderRejectedError) return { kind: "not-found" };
    logger.warn(errorFields(error), "support customer lookup failed");
    return { kind: "failed" };
  }
  return {
    kind: "found",
    entries: await recentMatching(journal, limit, (entry) => entry.cuid === cuid),
  };
}
