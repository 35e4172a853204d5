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
