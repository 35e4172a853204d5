/** Deletes KEYS[1] when it still holds ARGV[1]: a lease is given back by its holder only. */
export const RELEASE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;
