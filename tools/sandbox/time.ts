// The sandbox's dates: wall-clock times in its configured zone, as the provider sends them.
import { DateTime } from "luxon";

export function formatWallClock(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).toFormat("yyyy-MM-dd HH:mm:ss");
}

export function isValidTimeZone(zone: string): boolean {
  return DateTime.local({ zone }).isValid;
}
