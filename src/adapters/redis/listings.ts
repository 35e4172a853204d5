import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";

/** Listings kept in memory for the taps that follow; older ones are read back from Redis. */
const RECENT = 500;
/** Values shared between the listings in memory, at most (then they are gathered anew). */
const SHARED = 2_000;

/**
 * Journey listings (every bouquet the provider listed), written once when the menu opens and
 * read by every tap. The recent ones stay in this process, so that a page turn costs no extra
 * round trip; another replica, or this one after a restart, reads them from Redis.
 */
export class RedisListings {
  private readonly recent = new Map<string, unknown>();
  /** The objects listed in arrays (bouquets, subscriptions), one of each by its JSON. */
  private readonly shared = new Map<string, unknown>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async put(journeyId: string, listing: unknown, group?: string): Promise<void> {
    const json = JSON.stringify(listing);
    const key = this.keys.listing(journeyId);
    if (group === undefined) await this.redis.set(key, json, "EX", this.ttlSeconds);
    else {
      // The group lasts as long as its newest listing: it only names them.
      const members = this.keys.listingGroup(group);
      await this.redis
        .multi()
        .set(key, json, "EX", this.ttlSeconds)
        .sadd(members, journeyId)
        .expire(members, this.ttlSeconds)
        .exec();
    }
    // As Redis gives it back (to this replica after a restart, or to another one).
    this.remember(journeyId, this.compact(JSON.parse(json)));
  }

  async get(journeyId: string): Promise<unknown> {
    const known = this.recent.get(journeyId);
    if (known !== undefined) {
      this.remember(journeyId, known);
      return known;
    }
    const raw = await this.redis.get(this.keys.listing(journeyId));
    if (raw === null) return null;
    const listing = this.compact(JSON.parse(raw));
    this.remember(journeyId, listing);
    return listing;
  }

  /**
   * The listings put under `group`, gone from Redis and from this process's memory, with the
   * objects of their arrays this process shares (another replica's copy ages out of its memory).
   */
  async dropGroup(group: string): Promise<void> {
    const key = this.keys.listingGroup(group);
    const ids = await this.redis.smembers(key);
    if (ids.length === 0) return;
    const keys = ids.map((id) => this.keys.listing(id));
    const stored = await this.redis.mget(keys);
    await this.redis.del(key, ...keys);
    ids.forEach((id, index) => {
      const raw = stored[index];
      this.unshare(this.recent.get(id) ?? (raw ? JSON.parse(raw) : null));
      this.recent.delete(id);
    });
  }

  /** The objects of a listing's arrays, shared no more (see compact). */
  private unshare(value: unknown): void {
    if (value === null || typeof value !== "object") return;
    const inArray = Array.isArray(value);
    for (const item of inArray ? value : Object.values(value)) {
      if (inArray && item !== null && typeof item === "object") {
        this.shared.delete(JSON.stringify(item));
      }
      this.unshare(item);
    }
  }

  /**
   * The copy kept in memory, with each object of its arrays shared with the listings before it:
   * a provider lists the same bouquets to every subscriber of a plan, and 500 listings held
   * 500 copies of the catalogue (a fifth of the bot's live heap at 2,000 users, and V8 keeps
   * the pages a busy heap grew to: bench/RESULTS.md). Listings never change, so a shared object
   * is never written to.
   */
  private compact(listing: unknown): unknown {
    if (Array.isArray(listing)) {
      return listing.map((item) => {
        if (item === null || typeof item !== "object") return item;
        const value = this.compact(item);
        const key = JSON.stringify(value);
        const known = this.shared.get(key);
        if (known !== undefined) return known;
        if (this.shared.size >= SHARED) this.shared.clear();
        this.shared.set(key, value);
        return value;
      });
    }
    if (listing === null || typeof listing !== "object") return listing;
    return Object.fromEntries(
      Object.entries(listing).map(([name, value]) => [name, this.compact(value)]),
    );
  }

  /** Most recent last; the oldest goes when there are too many. */
  private remember(journeyId: string, listing: unknown): void {
    this.recent.delete(journeyId);
    this.recent.set(journeyId, listing);
    if (this.recent.size > RECENT) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
  }
}
