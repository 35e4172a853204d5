import { DateTime } from "luxon";
import type { ProviderTime } from "../../domain/model.js";
import { type Amount, decimalsOf } from "../../domain/money.js";
import { formatMinorUnits } from "../../domain/provider-balance.js";
import { escapeHtml } from "./html.js";

/** The zone a speaker of a locale takes for granted; any other is named beside a time. */
const OBVIOUS_ZONE: Record<string, string> = { ne: "Asia/Kathmandu" };

/**
 * Formats amounts, dates and day counts for one user's locale and the provider's zone. The
 * results are HTML-safe: a time the provider sent in a form nobody could read is shown as
 * sent, escaped. A time of day names the provider's zone unless it is the user's obvious one
 * ("12 Jan 2027, 23:59 (Asia/Kathmandu)").
 */
export class ValueFormatter {
  private readonly money = new Map<string, Intl.NumberFormat>();
  private readonly date: Intl.DateTimeFormat;
  private readonly dateTime: Intl.DateTimeFormat;
  private readonly time: Intl.DateTimeFormat;
  private readonly intlLocale: string;
  private readonly zoneNote: string;

  constructor(
    readonly locale: string,
    private readonly timeZone: string,
    private readonly currency: string | undefined,
  ) {
    this.intlLocale = locale === "ne" ? "ne-NP" : "en-GB";
    this.zoneNote = OBVIOUS_ZONE[locale] === timeZone ? "" : ` (${timeZone})`;
    this.date = new Intl.DateTimeFormat(this.intlLocale, { dateStyle: "medium", timeZone });
    this.dateTime = new Intl.DateTimeFormat(this.intlLocale, {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone,
    });
    this.time = new Intl.DateTimeFormat(this.intlLocale, { timeStyle: "short", timeZone });
  }

  /** The time of day ("14:05"), for "try again at". */
  clock(at: number): string {
    return this.time.format(at) + this.zoneNote;
  }

  /**
   * Exactly what is charged, with the currency (this formatter's, or `currency`: a sum in
   * another one) and the locale's separators and digits: two decimals at least, every decimal
   * it has, never rounded. Signed amounts (a balance, a drift) keep their sign.
   */
  amount(value: Amount, currency: string | undefined = this.currency): string {
    const decimals = Math.max(2, decimalsOf(value));
    const key = `${currency ?? ""}:${decimals}`;
    let format = this.money.get(key);
    if (!format) {
      const digits = { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
      format = new Intl.NumberFormat(
        this.intlLocale,
        currency ? { style: "currency", currency, ...digits } : digits,
      );
      this.money.set(key, format);
    }
    // The decimal text itself, not a float: exact at any size.
    return format.format(value as `${number}`);
  }

  /** An amount counted in the currency's minor units (a ledger sum, a balance, a refund). */
  minor(minor: bigint | number, minorDigits: number): string {
    return this.amount(formatMinorUnits(BigInt(minor), minorDigits));
  }

  /** The day of a time ("24 Nov 2026"), or the provider's text when it could not be read. */
  day(at: ProviderTime): string {
    return at.at === null ? escapeHtml(at.text) : this.date.format(at.at);
  }

  /** Day and time, or only the day when the provider sent only a day. */
  moment(at: ProviderTime | number): string {
    if (typeof at === "number") return this.dateTime.format(at) + this.zoneNote;
    if (at.at === null) return escapeHtml(at.text);
    return at.dateOnly ? this.date.format(at.at) : this.dateTime.format(at.at) + this.zoneNote;
  }

  /** Whole calendar days from today to `at` in the provider's zone; null when unreadable. */
  daysUntil(at: ProviderTime, now: number = Date.now()): number | null {
    if (at.at === null) return null;
    const day = (value: number) =>
      DateTime.fromMillis(value, { zone: this.timeZone }).startOf("day");
    return Math.round(day(at.at).diff(day(now), "days").days);
  }
}
