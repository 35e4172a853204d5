// Connections a Telegram user topped up successfully, offered again as one-tap choices.
import type { Purchase } from "./purchase.js";

/** At most this many are kept per user, the latest first. */
const SAVED_KEPT = 5;

export interface SavedConnection {
  /** How the customer is shown: first name and last initial, as on the customer card. */
  customerName: string;
  service: Purchase["connection"]["service"];
  /** The connection's id (set-top-box number or username): also the code to look it up by. */
  connectionId: string;
}

export interface SavedConnectionStore {
  list(user: number): Promise<SavedConnection[]>;
  /** Puts the connection first; the oldest beyond {@link SAVED_KEPT} is dropped. */
  remember(user: number, connection: SavedConnection): Promise<void>;
  forget(user: number): Promise<void>;
}

/** "Ram Thapa" → "Ram T.". */
export function shortCustomerName(fullName: string): string {
  const [first = "", ...rest] = fullName.trim().split(/\s+/);
  const last = rest.at(-1);
  return last ? `${first} ${last.charAt(0)}.` : first;
}

/** The list after `connection` was topped up: first, without its earlier place, five at most. */
export function withRemembered(
  saved: SavedConnection[],
  connection: SavedConnection,
): SavedConnection[] {
  const others = saved.filter(
    (s) => s.service !== connection.service || s.connectionId !== connection.connectionId,
  );
  return [connection, ...others].slice(0, SAVED_KEPT);
}
