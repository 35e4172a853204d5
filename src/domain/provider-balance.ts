// The integrator's prepaid balance at the provider, which the provider's API does not tell: the
// bot keeps the balance it expects from what admins record (deposits, readings of the portal)
// less what was charged since. Amounts here are exact, in the currency's minor units.

/** An amount an admin typed ("50000", "123456.50"), in minor units; null when malformed. */
export function parseMinorUnits(text: string, minorDigits: number): bigint | null {
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text.trim());
  if (match === null) return null;
  const [, whole = "", fraction = ""] = match;
  if (fraction.length > minorDigits) return null;
  return (
    BigInt(whole) * 10n ** BigInt(minorDigits) + BigInt(fraction.padEnd(minorDigits, "0") || "0")
  );
}

/** Minor units as the decimal text of the currency ("12345650" with 2 digits is "123456.50"). */
export function formatMinorUnits(minor: bigint, minorDigits: number): string {
  const sign = minor < 0n ? "-" : "";
  const digits = (minor < 0n ? -minor : minor).toString().padStart(minorDigits + 1, "0");
  if (minorDigits === 0) return sign + digits;
  return `${sign}${digits.slice(0, -minorDigits)}.${digits.slice(-minorDigits)}`;
}

/** What an admin records: a deposit made at the provider, or the balance read on its portal. */
export interface BalanceEntry {
  kind: "deposit" | "reading";
  amountMinor: bigint;
  note: string;
  /** The admin's Telegram user id. */
  admin: number;
}

export interface ExpectedBalance {
  /** The last reading (0 when none) plus deposits less top-ups charged since, in minor units. */
  expectedMinor: bigint;
  lastReading: { amountMinor: bigint; at: Date } | null;
  depositsSinceMinor: bigint;
  chargedSinceMinor: bigint;
}

/** The ledger of the provider balance: entries are only ever added. */
export interface ProviderBalanceLedger {
  record(entry: BalanceEntry): Promise<void>;
  expected(): Promise<ExpectedBalance>;
}
