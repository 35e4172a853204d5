// How subscribers pay in the playground: the bot's PAYMENT_METHODS, chosen with DEMO_PAYMENT_MODE.
import type { PaymentMethod } from "../../src/domain/purchase.js";

/**
 * all: every method, the buyer picks one on the confirm screen; telegram: an invoice paid with
 * a test card; khalti: on the Khalti sandbox's page, opened from the bot's link; esewa: the
 * bot's pay page posts to the eSewa sandbox's page; fonepay: the QR in the chat, paid on the
 * Fonepay sandbox's page (the bank app); none: nobody pays, everyone tops up.
 */
export const DEMO_PAYMENT_MODES = [
  "all",
  "telegram",
  "khalti",
  "esewa",
  "fonepay",
  "none",
] as const;
export type DemoPaymentMode = (typeof DEMO_PAYMENT_MODES)[number];

/**
 * The bot's PAYMENT_METHODS per mode, in button order (none: PAYMENT_MODE=none). eSewa first:
 * the wallet most Nepali buyers hold, then Khalti, then a card.
 */
export const DEMO_METHODS: Record<DemoPaymentMode, readonly PaymentMethod[]> = {
  all: ["esewa", "khalti", "fonepay", "telegram"],
  telegram: ["telegram"],
  khalti: ["khalti"],
  esewa: ["esewa"],
  fonepay: ["fonepay"],
  none: [],
};
