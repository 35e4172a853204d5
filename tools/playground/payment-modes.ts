// How subscribers pay in the playground: the bot's PAYMENT_MODE, chosen with DEMO_PAYMENT_MODE.

/**
 * telegram: an invoice paid with a test card; khalti: on the Khalti sandbox's page, opened
 * from the bot's link; esewa: the bot's pay page posts to the eSewa sandbox's page; none:
 * nobody pays, everyone tops up.
 */
export const DEMO_PAYMENT_MODES = ["telegram", "khalti", "esewa", "none"] as const;
export type DemoPaymentMode = (typeof DEMO_PAYMENT_MODES)[number];
