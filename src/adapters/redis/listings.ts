import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";

/** Listings kept in memory for the taps that follow; older ones are read back from Redis. */
const RECENT = 500;

/**
 * Journey listings (every bouquet the provider listed), written once when the menu opens and
 * read by every tap. The recent ones stay in this process, so that a page turn costs no extra
 * round trip; another replica, or this one after a restart, reads them from Redis.
 */
export class RedisListings {
  private readonly recent = new Map<string, unknown>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async put(journeyId: string, listing: unknown): Promise<void> {
    await this.redis.set(
      this.keys.listing(journeyId),
      JSON.stringify(listing),
      "EX",
      this.ttlSeconds,
    );
    this.remember(journeyId, listing);
  }

  async get(journeyId: string): Promise<unknown> {
    const known = this.recent.get(journeyId);
    if (known !== undefined) {
      this.remember(journeyId, known);
      return known;
    }
    const raw = await this.redis.get(this.keys.listing(journeyId));
    if (raw === null) return null;
    const listing: unknown = JSON.parse(raw);
    this.remember(journeyId, listing);
    return listing;
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
