import { DateTime } from "luxon";

/** Formats amounts, dates and day counts for one user's locale and the provider's zone. */
export class ValueFormatter {
  private readonly money: Intl.NumberFormat;
  private readonly date: Intl.DateTimeFormat;
  private readonly dateTime: Intl.DateTimeFormat;

  constructor(
    readonly locale: string,
    private readonly timeZone: string,
    currency: string | undefined,
  ) {
    const intlLocale = locale === "ne" ? "ne-NP" : "en-GB";
    this.money = new Intl.NumberFormat(
      intlLocale,
      currency
        ? { style: "currency", currency, maximumFractionDigits: 2, minimumFractionDigits: 0 }
        : { maximumFractionDigits: 2 },
    );
    this.date = new Intl.DateTimeFormat(intlLocale, { dateStyle: "medium", timeZone });
    this.dateTime = new Intl.DateTimeFormat(intlLocale, {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone,
    });
  }

  amount(value: number): string {
    return this.money.format(value);
  }

  day(at: Date | number): string {
    return this.date.format(at);
  }

  moment(at: Date | number): string {
    return this.dateTime.format(at);
  }

  /** Whole calendar days from today to `at` in the provider's zone; negative when past. */
  daysUntil(at: Date | number, now: Date | number = Date.now()): number {
    const day = (value: Date | number) =>
      DateTime.fromMillis(typeof value === "number" ? value : value.getTime(), {
        zone: this.timeZone,
      }).startOf("day");
    return Math.round(day(at).diff(day(now), "days").days);
  }
}
