import type { BillingPeriod } from "./model.js";

export interface ParsedBouquetName {
  displayName: string;
  period: BillingPeriod | null;
  addOn: boolean;
}

const PERIODS: Record<string, BillingPeriod> = {
  MONTHLY: "monthly",
  QUARTERLY: "quarterly",
  "HALF YEARLY": "half-yearly",
  HALFYEARLY: "half-yearly",
  YEARLY: "yearly",
  ANNUAL: "yearly",
};

const ADD_ON = /\[\s*add[\s-]*on\s*\]/i;
const ADD_ON_ALL = new RegExp(ADD_ON.source, "gi");
const TRAILING_PARENS = /\(\s*([A-Za-z][A-Za-z\s-]*?)\s*\)\s*$/;

/**
 * Splits a provider bouquet name such as `Sports HD [AddOn] (HALF YEARLY)` into its display
 * name, billing period and add-on flag. Tolerant of case, spacing and hyphens, because the
 * names are data typed by people, not fixed by the interface.
 */
export function parseBouquetName(name: string): ParsedBouquetName {
  const addOn = ADD_ON.test(name);
  let rest = name.replace(ADD_ON_ALL, " ");
  let period: BillingPeriod | null = null;
  const match = TRAILING_PARENS.exec(rest);
  if (match?.[1]) {
    const key = match[1]
      .toUpperCase()
      .replace(/[\s-]+/g, " ")
      .trim();
    const found = PERIODS[key] ?? PERIODS[key.replace(/ /g, "")];
    if (found) {
      period = found;
      rest = rest.slice(0, match.index);
    }
  }
  const displayName = rest.replace(/\s+/g, " ").trim() || name.trim();
  return { displayName, period, addOn };
}
