// Amounts exactly as the provider states them. A price is what is charged, so it is kept as
// the decimal text received (a JSON number or a numeric string), sent back unchanged, and
// never rounded: 12.345 stays 12.345.

/** A non-negative decimal in plain notation, such as "700", "65.5" or "12.345". */
export type Amount = string;

const DECIMAL = /^\d+(\.\d+)?$/;

/** The amount a provider value states, or null when it is not a plain decimal number. */
export function parseAmount(value: unknown): Amount | null {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) return null;
    const text = String(value);
    return DECIMAL.test(text) ? text : null;
  }
  if (typeof value !== "string") return null;
  const text = value.trim();
  return DECIMAL.test(text) ? text.replace(/^0+(?=\d)/, "") : null;
}

/** Digits after the decimal point, as stated ("65.50" has 2). */
export function decimalsOf(amount: Amount): number {
  return amount.split(".")[1]?.length ?? 0;
}

/** The same number, whatever trailing zeros: "65.5" equals "65.50". */
export function sameAmount(a: Amount, b: Amount): boolean {
  const canonical = (amount: Amount) => amount.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  return canonical(a) === canonical(b);
}

/** Something can be sold for it: more than zero. */
export const isChargeable = (amount: Amount): boolean => /[1-9]/.test(amount);
