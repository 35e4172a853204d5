// Connections a Telegram user topped up successfully, offered again as one-tap choices, and
// the phone number they shared as theirs.
import type { Purchase } from "./purchase.js";

/** At most this many are kept per user, the latest first. */
const SAVED_KEPT = 5;

export interface SavedConnection {
  /** The customer's first name and last initial ("Sita S."); shown masked unless proved. */
  customerName: string;
  service: Purchase["connection"]["service"];
  /** The connection's id (set-top-box number or username): also the code to look it up by. */
  connectionId: string;
  /**
   * Saved from a purchase whose customer the buyer proved theirs (Purchase.proved): shown in
   * full, and tapped it is looked up as theirs. Absent (a code typed, or a connection saved
   * before this was kept): masked, and looked up as a typed code.
   */
  proved?: true;
}

export interface SavedConnectionStore {
  list(user: number): Promise<SavedConnection[]>;
  /** Puts the connection first; the oldest beyond {@link SAVED_KEPT} is dropped. */
  remember(user: number, connection: SavedConnection): Promise<void>;
  /**
   * The phone number the user shared as their own contact and a customer was found by (as a
   * customer code), kept beside their saved connections for as long: the shop lists its
   * connections. Personal data: never logged. null when none is kept.
   */
  sharedPhone(user: number): Promise<string | null>;
  keepSharedPhone(user: number, phone: string): Promise<void>;
  /** Forgets the saved connections and the shared phone number. */
  forget(user: number): Promise<void>;
}

/** "Ram Thapa" → "Ram T.". */
export function shortCustomerName(fullName: string): string {
  const [first = "", ...rest] = fullName.trim().split(/\s+/);
  const last = rest.at(-1);
  return last ? `${first} ${last.charAt(0)}.` : first;
}

const same = (a: SavedConnection, b: SavedConnection) =>
  a.service === b.service && a.connectionId === b.connectionId;

/**
 * The list after `connection` was topped up: first, without its earlier place, five at most.
 * Once proved theirs it stays so: the same connection typed later is still the buyer's own.
 */
export function withRemembered(
  saved: SavedConnection[],
  connection: SavedConnection,
): SavedConnection[] {
  const proved = connection.proved || saved.some((s) => same(s, connection) && s.proved);
  const first = { ...connection, ...(proved && { proved: true as const }) };
  return [first, ...saved.filter((s) => !same(s, connection))].slice(0, SAVED_KEPT);
}
