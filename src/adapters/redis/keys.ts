// Every Redis key the bot uses, in one place, under one configurable prefix.

export type RedisKeys = ReturnType<typeof redisKeys>;

export function redisKeys(prefix: string) {
  return {
    prefix,
    session: (chatId: string) => `${prefix}session:${chatId}`,
    update: (updateId: number) => `${prefix}update:${updateId}`,
    journalEntry: (checkoutId: string) => `${prefix}journal:entry:${checkoutId}`,
    journalPending: `${prefix}journal:pending`,
    journalUntold: `${prefix}journal:untold`,
    journalRecent: `${prefix}journal:recent`,
    journalReference: (reference: string) => `${prefix}journal:ref:${reference}`,
    intent: (intentId: string) => `${prefix}intent:${intentId}`,
    purchaseInFlight: (buyer: number) => `${prefix}inflight:${buyer}`,
    checkoutLock: (checkoutId: string) => `${prefix}lock:checkout:${checkoutId}`,
    /** Support: the audit stream of lookups, and short ids for the Refresh buttons. */
    auditLookups: `${prefix}audit:lookups`,
    lookupRef: (id: string) => `${prefix}lookup:${id}`,
    /** A journey offered again by a purchase running in the background, until tapped. */
    draft: (chatId: number, journeyId: string) => `${prefix}draft:${chatId}:${journeyId}`,
    /** Admin broadcasts: who talked to the bot, and each broadcast's recipients and progress. */
    subscriber: (userId: number) => `${prefix}subscriber:${userId}`,
    subscribers: `${prefix}subscribers`,
    broadcast: (id: string) => `${prefix}broadcast:${id}`,
    broadcastRecipients: (id: string) => `${prefix}broadcast:${id}:recipients`,
    broadcastProgress: (id: string) => `${prefix}broadcast:${id}:progress`,
    broadcastsRunning: `${prefix}broadcasts:running`,
    /** Prefix of BullMQ's own keys. */
    queuePrefix: `${prefix}bull`,
  };
}
