import type { Redis } from "ioredis";
import {
  type SavedConnection,
  type SavedConnectionStore,
  withRemembered,
} from "../../domain/saved-connections.js";
import type { RedisKeys } from "./keys.js";

/** A year after the last top-up, a user's saved connections are forgotten. */
const KEPT_SECONDS = 365 * 86_400;

/**
 * One JSON list per user, and the shared phone number as a string beside it. Two top-ups of one user at the same moment may keep only one. */
export class RedisSavedConnections implements SavedConnectionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async list(user: number): Promise<SavedConnection[]> {
    const raw = await this.redis.get(this.keys.savedConnections(user));
    return raw === null ? [] : (JSON.parse(raw) as SavedConnection[]);
  }

  async remember(user: number, connection: SavedConnection): Promise<void> {
    const saved = withRemembered(await this.list(user), connection);
    await this.redis.set(
      this.keys.savedConnections(user),
      JSON.stringify(saved),
      "EX",
      KEPT_SECONDS,
    );
  }

  async sharedPhone(user: number): Promise<string | null> {
    return this.redis.get(this.keys.sharedPhone(user));
  }

  /** Kept a year after it was last shared, as the saved connections after the last top-up. */
  async keepSharedPhone(user: number, phone: string): Promise<void> {
    await this.redis.set(this.keys.sharedPhone(user), phone, "EX", KEPT_SECONDS);
  }

  async forget(user: number): Promise<void> {
    await this.redis.del(this.keys.savedConnections(user), this.keys.sharedPhone(user));
  }
}
