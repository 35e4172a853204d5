import type { Redis } from "ioredis";
import type { Reminder, ReminderStore } from "../../domain/reminders.js";
import type { RedisKeys } from "./keys.js";

/** A sent reminder's Renew button works this long. */
const SENT_KEPT_SECONDS = 7 * 86_400;

// A script reads a reminder's user and slot from its fields hash, never from the JSON record:
// not every Lua a Redis runs has cjson (the playground's in-process stand-in has none). A
// reminder written before the fields existed has none: it is still taken once, its id leaves
// its user's set at that user's next add, and a new reminder in its slot is added beside it.

// KEYS: due set. ARGV: now, limit, record key prefix, fields key prefix, user set key prefix.
// Takes due reminders out of every index in one step: each goes to one instance only.
const TAKE_DUE = `
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", ARGV[1], "LIMIT", 0, ARGV[2])
local taken = {}
for _, id in ipairs(ids) do
  redis.call("ZREM", KEYS[1], id)
  local raw = redis.call("GET", ARGV[3] .. id)
  local user = redis.call("HGET", ARGV[4] .. id, "user")
  if user then redis.call("ZREM", ARGV[5] .. user, id) end
  redis.call("DEL", ARGV[3] .. id, ARGV[4] .. id)
  if raw then table.insert(taken, raw) end
end
return taken`;

// KEYS: due set, the user's set. ARGV: record key prefix, fields key prefix, cap, user, then
// per reminder: id, fire time, record, expiry (unix seconds), slot. One reminder per
// connection, bouquet and offset (its slot): a new one takes its place; the cap counts the
// user's reminders after that.
const ADD = `
local held = {}
local count = 0
for _, id in ipairs(redis.call("ZRANGE", KEYS[2], 0, -1)) do
  if redis.call("EXISTS", ARGV[1] .. id) == 1 then
    count = count + 1
    local slot = redis.call("HGET", ARGV[2] .. id, "slot")
    if slot then held[slot] = id end
  else
    redis.call("ZREM", KEYS[2], id)
  end
end
local replaced = {}
for i = 5, #ARGV, 5 do
  local old = held[ARGV[i + 4]]
  if old then table.insert(replaced, old) else count = count + 1 end
end
if count > tonumber(ARGV[3]) then return 0 end
for _, id in ipairs(replaced) do
  redis.call("ZREM", KEYS[1], id)
  redis.call("ZREM", KEYS[2], id)
  redis.call("DEL", ARGV[1] .. id, ARGV[2] .. id)
end
for i = 5, #ARGV, 5 do
  redis.call("SET", ARGV[1] .. ARGV[i], ARGV[i + 2], "EXAT", ARGV[i + 3])
  redis.call("HSET", ARGV[2] .. ARGV[i], "user", ARGV[4], "slot", ARGV[i + 4])
  redis.call("EXPIREAT", ARGV[2] .. ARGV[i], ARGV[i + 3])
  redis.call("ZADD", KEYS[1], ARGV[i + 1], ARGV[i])
  redis.call("ZADD", KEYS[2], ARGV[i + 1], ARGV[i])
end
return 1`;

/** A user has one reminder per slot: the subscription (connection and bouquet) and the offset. */
function slotOf(reminder: Reminder): string {
  const { connection, bouquet, daysBefore } = reminder;
  return `${connection.service}/${connection.id}/${bouquet.code}/${daysBefore}`;
}

/**
 * Reminders in Redis: a record each (JSON) with its fields for the scripts (a hash), a sorted
 * set by due time, and one per user.
 */
export class RedisReminders implements ReminderStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async add(reminders: Reminder[], perUser: number): Promise<boolean> {
    const [first] = reminders;
    if (!first) return true;
    const each = reminders.flatMap((reminder) => [
      reminder.id,
      reminder.fireAt,
      JSON.stringify(reminder),
      Math.ceil(reminder.fireAt / 1000) + SENT_KEPT_SECONDS,
      slotOf(reminder),
    ]);
    const added = await this.redis.eval(
      ADD,
      2,
      this.keys.remindersDue,
      this.keys.remindersOfUser(first.user),
      this.keys.reminder(""),
      this.keys.reminderFields(""),
      perUser,
      first.user,
      ...each,
    );
    return added === 1;
  }

  async takeDue(now: number, limit: number): Promise<Reminder[]> {
    const taken = (await this.redis.eval(
      TAKE_DUE,
      1,
      this.keys.remindersDue,
      now,
      limit,
      this.keys.reminder(""),
      this.keys.reminderFields(""),
      this.keys.remindersOfUser(""),
    )) as string[];
    return taken.map((raw) => JSON.parse(raw) as Reminder);
  }

  async nextDue(): Promise<number | null> {
    const [, score] = await this.redis.zrange(this.keys.remindersDue, 0, 0, "WITHSCORES");
    return score === undefined ? null : Number(score);
  }

  async ofUser(user: number): Promise<Reminder[]> {
    const ids = await this.redis.zrange(this.keys.remindersOfUser(user), 0, 49);
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.keys.reminder(id)));
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw));
  }

  /** Only the user's own: an id from someone else's button cancels nothing. */
  async cancel(user: number, id: string): Promise<boolean> {
    if ((await this.redis.zrem(this.keys.remindersOfUser(user), id)) === 0) return false;
    await this.redis
      .multi()
      .zrem(this.keys.remindersDue, id)
      .del(this.keys.reminder(id), this.keys.reminderFields(id))
      .exec();
    return true;
  }

  async cancelAll(user: number): Promise<void> {
    const ids = await this.redis.zrange(this.keys.remindersOfUser(user), 0, -1);
    const multi = this.redis.multi().del(this.keys.remindersOfUser(user));
    for (const id of ids) {
      multi
        .zrem(this.keys.remindersDue, id)
        .del(this.keys.reminder(id), this.keys.reminderFields(id));
    }
    await multi.exec();
  }

  async keepSent(reminder: Reminder): Promise<void> {
    await this.redis
      .multi()
      .set(this.keys.reminderSent(reminder.id), JSON.stringify(reminder), "EX", SENT_KEPT_SECONDS)
      .incr(this.keys.remindersSentCount)
      .exec();
  }

  async sentCount(): Promise<number> {
    return Number((await this.redis.get(this.keys.remindersSentCount)) ?? 0);
  }

  async sent(id: string): Promise<Reminder | null> {
    const raw = await this.redis.get(this.keys.reminderSent(id));
    return raw === null ? null : (JSON.parse(raw) as Reminder);
  }
}
