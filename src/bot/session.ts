// What a chat's session holds of its flows: where the user is in the top-up journey, and the
// version that retires flows of an older shape. The top-up feature fills the place
// (features/topup/journey.ts); the session's type (context.ts) depends on no feature.
import type { BouquetFilter } from "../domain/catalogue.js";
import type { PaymentMethod } from "../domain/purchase.js";

/**
 * Bump when the journey or a conversation (identify, broadcast) changes shape: old ones then
 * expire.
 */
export const FLOW_VERSION = 6;

/** A tap on the journey's menu, and the screen it leads to. */
export type MenuAction =
  | { op: "overview" }
  | { op: "list"; filter: BouquetFilter; page: number }
  | { op: "pick"; bouquet: number }
  /** Confirm; paying by this method where several are offered. */
  | { op: "confirm"; method?: PaymentMethod }
  | { op: "cancel" }
  | { op: "noop" }
  /** "🔔 Remind me" beside a current subscription. */
  | { op: "remind"; subscription: number };

/** Where the user is in the journey: the chat's session holds this. */
export interface Place {
  v: number;
  id: string;
  updatedAt: number;
  menuMessageId?: number;
  /** The screen shown last (overview or a list page), where Back on the confirm screen leads. */
  view?: MenuAction;
  /** Set while the confirm screen is shown. */
  selected?: { bouquet: number; intentId: string; back: MenuAction };
  /** Opened from a reminder's Renew button (a renewal that followed a reminder is counted). */
  fromReminder?: true;
}
