// The integrator's prepaid balance at the provider, which the provider's API does not tell: the
// bot keeps the balance it expects from what admins record (deposits, readings of the portal)
// less what was charged since. Amounts here are exact, in the currency's minor units.
import type { Log } from "./ports.js";

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

/** A reading of the portal beside the balance expected just before it, in minor units. */
export interface BalanceDrift {
  at: Date;
  readingMinor: bigint;
  /** The reading before (0 when none) plus deposits less top-ups charged since, up to it. */
  expectedMinor: bigint;
}

/** The ledger of the provider balance: entries are only ever added. */
export interface ProviderBalanceLedger {
  record(entry: BalanceEntry): Promise<void>;
  expected(): Promise<ExpectedBalance>;
  /** Every reading recorded from day `first` to day `last` (YYYY-MM-DD, in `timeZone`). */
  drifts(first: string, last: string, timeZone: string): Promise<BalanceDrift[]>;
}

/** Once-only across replicas: the balance is low until it is seen back at or above the line. */
export interface LowBalanceLatch {
  /** True for the first to see the balance low since it was last above: it alerts. */
  fall(): Promise<boolean>;
  rise(): Promise<void>;
}

/** The operators told, the amounts in minor units (each reader sees them in their own words). */
export interface BalanceAlarm {
  balanceLow(amounts: { expectedMinor: bigint; belowMinor: bigint }): Promise<void>;
  balanceStop(amounts: {
    expectedMinor: bigint;
    priceMinor: bigint;
    belowMinor: bigint;
  }): Promise<void>;
}

/** Alerts the admins once when the expected balance falls below BALANCE_ALERT_BELOW. */
export class BalanceWatch {
  constructor(
    private readonly ledger: ProviderBalanceLedger,
    private readonly latch: LowBalanceLatch,
    private readonly alarm: BalanceAlarm,
    private readonly settings: { belowMinor: bigint },
    private readonly log: Log,
  ) {}

  /** After each charged top-up and each entry; a failure costs only this check. */
  async check(): Promise<void> {
    try {
      const { expectedMinor } = await this.ledger.expected();
      const { belowMinor } = this.settings;
      if (expectedMinor >= belowMinor) return await this.latch.rise();
      if (!(await this.latch.fall())) return;
      await this.alarm.balanceLow({ expectedMinor, belowMinor });
    } catch (error) {
      this.log.warn({ err: error }, "could not check the provider balance");
    }
  }
}

/**
 * BALANCE_STOP_BELOW: a purchase that would take the expected balance below it (with 0: whose
 * price exceeds the balance) is refused before the buyer pays; operators are alerted once until
 * a purchase is allowed again. When the ledger cannot say, the purchase goes on: the provider
 * refuses a top-up it cannot pay, and the buyer is refunded.
 */
export class BalanceGuard {
  constructor(
    private readonly ledger: ProviderBalanceLedger,
    private readonly latch: LowBalanceLatch,
    private readonly alarm: BalanceAlarm,
    private readonly settings: { belowMinor: bigint; minorDigits: number },
    private readonly log: Log,
  ) {}

  /** False when a purchase at `price` (the provider's decimal text) must be refused. */
  async allows(price: string): Promise<boolean> {
    const { belowMinor, minorDigits } = this.settings;
    const priceMinor = parseMinorUnits(price, minorDigits);
    if (priceMinor === null) return true;
    try {
      const { expectedMinor } = await this.ledger.expected();
      if (expectedMinor - priceMinor >= belowMinor) {
        await this.latch.rise();
        return true;
      }
      if (await this.latch.fall()) {
        await this.alarm
          .balanceStop({ expectedMinor, priceMinor, belowMinor })
          .catch((error: unknown) => this.log.warn({ err: error }, "could not alert operators"));
      }
      return false;
    } catch (error) {
      this.log.warn({ err: error }, "could not check the provider balance before a purchase");
      return true;
    }
  }
}
