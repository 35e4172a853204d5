// The state of one subscriber's top-up after the connection is chosen: browsing, confirming.
// Two parts: the place (which screen, what is selected; its type is the session's: session.ts)
// lives in the chat's session and is small; the listing (customer, connection, checkout,
// bouquets) is stored once per journey beside it. A restart in the middle of browsing loses
// neither.
import { type BouquetFilter, filterOf } from "../../../domain/catalogue.js";
import type {
  Bouquet,
  Checkout,
  Connection,
  Customer,
  PackageOffer,
  Subscription,
} from "../../../domain/model.js";
import { FLOW_VERSION, type Place } from "../../session.js";

export const PAGE_SIZE = 8;

/** What the provider listed for the journey; stored once, read by every tap. */
export interface Listing {
  customer: Customer;
  connection: Connection;
  checkout: { id: string; issuedAt: number };
  subscriptions: Subscription[];
  bouquets: Bouquet[];
  /**
   * Found by a typed code rather than the buyer's own shared contact: the views show only what
   * choosing takes (see views.ts), as anyone may type anyone's code.
   */
  masked: boolean;
}

export type Journey = Place & Listing;

export const placeOf = ({
  v,
  id,
  updatedAt,
  menuMessageId,
  view,
  selected,
  fromReminder,
}: Journey): Place => ({
  v,
  id,
  updatedAt,
  ...(menuMessageId !== undefined && { menuMessageId }),
  ...(view && { view }),
  ...(selected && { selected }),
  ...(fromReminder && { fromReminder }),
});

export const listingOf = (journey: Journey): Listing => ({
  customer: journey.customer,
  connection: journey.connection,
  checkout: journey.checkout,
  subscriptions: journey.subscriptions,
  bouquets: journey.bouquets,
  masked: journey.masked,
});

export function journeyFromOffer(
  id: string,
  offer: PackageOffer,
  now: number,
  masked: boolean,
): Journey {
  return {
    v: FLOW_VERSION,
    id,
    updatedAt: now,
    customer: offer.customer,
    connection: offer.connection,
    checkout: { id: offer.checkout.id, issuedAt: offer.checkout.issuedAt.getTime() },
    subscriptions: offer.subscriptions,
    bouquets: offer.bouquets,
    masked,
  };
}

/**
 * The purchase a confirm screen leads to: one id per journey and bouquet, so that a second
 * Confirm, or the same update again, is the same purchase.
 */
export const intentIdOf = (journeyId: string, bouquet: number) => `${journeyId}-${bouquet}`;

export const checkoutOf = (journey: Pick<Listing, "checkout">): Checkout => ({
  id: journey.checkout.id,
  issuedAt: new Date(journey.checkout.issuedAt),
});

/** Indices of the bouquets that renew a current subscription, soonest ending first. */
export function renewals(journey: Journey): number[] {
  const endOf = (subscription: Subscription) => subscription.end?.at ?? Number.POSITIVE_INFINITY;
  const byEnd = [...journey.subscriptions].sort((a, b) => endOf(a) - endOf(b));
  const seen = new Set<number>();
  for (const subscription of byEnd) {
    const index = journey.bouquets.findIndex((b) => b.code === subscription.code);
    if (index >= 0) seen.add(index);
  }
  return [...seen];
}

export interface Page {
  items: number[];
  page: number;
  pages: number;
}

/** One page of a filter's bouquets; renewals come first, the page number is clamped. */
export function pageOf(journey: Journey, filter: BouquetFilter, page: number): Page {
  const renewing = new Set(renewals(journey));
  const indices = journey.bouquets
    .map((bouquet, index) => ({ bouquet, index }))
    .filter(({ bouquet }) => filterOf(bouquet) === filter)
    .sort((a, b) => Number(renewing.has(b.index)) - Number(renewing.has(a.index)))
    .map(({ index }) => index);
  return paged(indices, page);
}

/** One page of a list of PAGE_SIZE items; the page number is clamped. */
export function paged(items: number[], page: number): Page {
  const pages = Math.max(1, Math.ceil(items.length / PAGE_SIZE));
  const current = Math.min(Math.max(0, page), pages - 1);
  return {
    items: items.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE),
    page: current,
    pages,
  };
}
