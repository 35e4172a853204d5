// How the bouquets of a listing are grouped for people: by billing period, add-ons apart.
import type { BillingPeriod, Bouquet } from "./model.js";

export type BouquetFilter = BillingPeriod | "addon" | "other";

const FILTER_ORDER: BouquetFilter[] = [
  "monthly",
  "quarterly",
  "half-yearly",
  "yearly",
  "addon",
  "other",
];

export const filterOf = (bouquet: Bouquet): BouquetFilter =>
  bouquet.addOn ? "addon" : (bouquet.period ?? "other");

/** The filters that have at least one bouquet, in a fixed order. */
export function filtersPresent(bouquets: Bouquet[]): BouquetFilter[] {
  const present = new Set(bouquets.map(filterOf));
  return FILTER_ORDER.filter((filter) => present.has(filter));
}
