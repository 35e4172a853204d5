// Every Redis key the bot uses, in one place, under one configurable prefix.

export type RedisKeys = ReturnType<typeof redisKeys>;

export function redisKeys(prefix: string) {
  return {
    prefix,
    session: (chatId: string) => `${prefix}session:${chatId}`,
    update: (updateId: number) => `${prefix}update:${updateId}`,
    /** One update of a chat at a time, across instances. */
    chatLock: (chatId: string) => `${prefix}chat-lock:${chatId}`,
    /** Purchases: the records, their indices and leases. */
    purchase: (id: string) => `${prefix}purchase:${id}`,
    purchaseLease: (id: string) => `${prefix}purchase:${id}:lease`,
    purchaseByCheckout: (checkoutId: string) => `${prefix}purchase-checkout:${checkoutId}`,
    purchaseByReference: (reference: string) => `${prefix}purchase-ref:${reference}`,
    purchaseByTransaction: (txnId: string) => `${prefix}purchase-txn:${txnId}`,
    purchasesOpen: `${prefix}purchases:open`,
    purchasesUntold: `${prefix}purchases:untold`,
    purchasesRecent: `${prefix}purchases:recent`,
    purchasesOfBuyer: (buyer: number) => `${prefix}purchases:buyer:${buyer}`,
    savedConnections: (user: number) => `${prefix}saved-connections:${user}`,
    /** The phone number a user shared as theirs (the shop lists its connections). */
    sharedPhone: (user: number) => `${prefix}shared-phone:${user}`,
    reminder: (id: string) => `${prefix}reminder:${id}`,
    /** What the reminders' scripts read of one (user, slot): they never decode its JSON. */
    reminderFields: (id: string) => `${prefix}reminder-fields:${id}`,
    reminderSent: (id: string) => `${prefix}reminder-sent:${id}`,
    remindersDue: `${prefix}reminders:due`,
    remindersSentCount: `${prefix}reminders:count:sent`,
    remindersOfUser: (user: number | "") => `${prefix}reminders:user:${user}`,
    purchaseInFlight: (buyer: number) => `${prefix}inflight:${buyer}`,
    /** Provider alerts sent (one instance sends each), and the outage they are about. */
    alert: (kind: string) => `${prefix}alert:${kind}`,
    alertOutage: `${prefix}alert:outage`,
    /** Support: the audit stream of lookups, and short ids for the Refresh buttons. */
    auditLookups: `${prefix}audit:lookups`,
    lookupRef: (id: string) => `${prefix}lookup:${id}`,
    /** When a chat last sent /cancel (a provider call pending then drops its result). */
    cancelled: (chatId: number) => `${prefix}cancelled:${chatId}`,
    /** A provider call of a chat's flow is pending (so that /cancel knows there is something). */
    flowBusy: (chatId: number) => `${prefix}flow-busy:${chatId}`,
    /** A journey's listing (customer, connection, checkout, bouquets), read by its taps. */
    listing: (journeyId: string) => `${prefix}listing:${journeyId}`,
    /** Listings dropped together (those of a user's shared number, at /forget). */
    listingGroup: (group: string) => `${prefix}listing-group:${group}`,
    /** A journey offered again by a purchase running in the background, until tapped. */
    draft: (chatId: number, journeyId: string) => `${prefix}draft:${chatId}:${journeyId}`,
    /** Admin broadcasts: who talked to the bot, and each broadcast's recipients and progress. */
    subscriber: (userId: number) => `${prefix}subscriber:${userId}`,
    subscribers: `${prefix}subscribers`,
    broadcast: (id: string) => `${prefix}broadcast:${id}`,
    broadcastRecipients: (id: string) => `${prefix}broadcast:${id}:recipients`,
    broadcastProgress: (id: string) => `${prefix}broadcast:${id}:progress`,
    broadcastsRunning: `${prefix}broadcasts:running`,
    /** Which instance polls Telegram (polling mode). */
    pollingTurn: `${prefix}polling-turn`,
    /** Customer lookups a user made in the current window (LOOKUP_LIMIT). */
    lookups: (userId: number) => `${prefix}lookups:${userId}`,
    /** The user's current window was started while the budget was exceeded: a smaller limit. */
    lookupsSlow: (userId: number) => `${prefix}lookups-slow:${userId}`,
    /** Lookups of all users together in the current hour (LOOKUP_BUDGET_PER_HOUR). */
    lookupBudget: `${prefix}lookup-budget`,
    /** A day's daily report to one admin: claimed while it is sent, then marked sent. */
    dailyReport: (day: string, admin: number) => `${prefix}daily-report:${day}:${admin}`,
    /** Prefix of BullMQ's own keys. */
    queuePrefix: `${prefix}bull`,
  };
}
