import { DateTime } from "luxon";

const PROVIDER_FORMAT = "yyyy-MM-dd HH:mm:ss";

/**
 * Parses the provider's `YYYY-MM-DD HH:MM:SS` wall-clock time in the given IANA zone
 * (the spec does not say which zone the provider uses, so it is configured).
 * Returns `null` for anything that is not such a time.
 */
export function parseProviderDateTime(value: string, zone: string): Date | null {
  const parsed = DateTime.fromFormat(value.trim(), PROVIDER_FORMAT, { zone });
  return parsed.isValid ? parsed.toJSDate() : null;
}

/** Formats an instant as the provider's wall-clock time in the given zone. */
export function formatProviderDateTime(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).toFormat(PROVIDER_FORMAT);
}

export function isValidTimeZone(zone: string): boolean {
  return DateTime.local({ zone }).isValid;
}
