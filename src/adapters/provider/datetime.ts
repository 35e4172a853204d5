import { DateTime } from "luxon";
import type { ProviderTime } from "../../domain/model.js";

/** The documented form first, then what other providers send. The spec states no zone. */
const WALL_CLOCK_FORMATS = ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy/MM/dd HH:mm:ss"];
const DATE_FORMATS = ["yyyy-MM-dd", "yyyy/MM/dd"];

/**
 * Reads a provider time: `YYYY-MM-DD HH:MM:SS` as wall-clock time in the configured zone, ISO
 * 8601 with or without a zone or offset, or a bare date (the start of that day). Anything else
 * keeps its text with `at: null`, so that it is shown as sent instead of failing the answer.
 * Not a string at all: null.
 */
export function parseProviderTime(value: unknown, zone: string): ProviderTime | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = value.trim();
  for (const format of WALL_CLOCK_FORMATS) {
    const parsed = DateTime.fromFormat(text, format, { zone });
    if (parsed.isValid) return { at: parsed.toMillis(), text };
  }
  for (const format of DATE_FORMATS) {
    const parsed = DateTime.fromFormat(text, format, { zone });
    if (parsed.isValid) return { at: parsed.toMillis(), text, dateOnly: true };
  }
  const iso = DateTime.fromISO(text, { zone, setZone: true });
  return { at: iso.isValid ? iso.toMillis() : null, text };
}

export function isValidTimeZone(zone: string): boolean {
  return DateTime.local({ zone }).isValid;
}
