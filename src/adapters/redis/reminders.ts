import type { Redis } from "ioredis";
import type { Reminder, ReminderStore } from "../../domain/reminders.js";
import type { RedisKeys } from "./keys.js";

/** A sent reminder's Renew button works this long. */
const SENT_KEPT_SECONDS = 7 * 86_400;

// KEYS: due set. ARGV: now, limit, record key prefix, user set key prefix.
// Takes due reminders out of every index in one step: each goes to one instance only.
const TAKE_DUE = `
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", ARGV[1], "LIMIT", 0, ARGV[2])
local taken = {}
for _, id in ipairs(ids) do
  redis.call("ZREM", KEYS[1], id)
  local raw = redis.call("GET", ARGV[3] .. id)
  if raw then
    redis.call("DEL", ARGV[3] .. id)
    local user = cjson.decode(raw)["user"]
    redis.call("ZREM", ARGV[4] .. string.format("%.0f", user), id)
    table.insert(taken, raw)
  end
end
return taken`;

// KEYS: due set, the user's set. ARGV: record key prefix, cap, then per reminder: id, fire
// time, record, expiry (unix seconds). One reminder per connection, bouquet and offset: a new one
// takes its place; the cap counts the user's reminders after that.
const ADD = `
local function slot(raw)
  local r = cjson.decode(raw)
  return r.connection.service .. "/" .. r.connection.id .. "/" .. r.bouquet.code .. "/" .. tostring(r.daysBefore)
end
local held = {}
local count = 0
for _, id in ipairs(redis.call("ZRANGE", KEYS[2], 0, -1)) do
  local raw = redis.call("GET", ARGV[1] .. id)
  if raw then
    held[slot(raw)] = id
    count = count + 1
  else
    redis.call("ZREM", KEYS[2], id)
  end
end
local replaced = {}
for i = 3, #ARGV, 4 do
  local old = held[slot(ARGV[i + 2])]
  if old then table.insert(replaced, old) else count = count + 1 end
end
if count > tonumber(ARGV[2]) then return 0 end
for _, id in ipairs(replaced) do
  redis.call("ZREM", KEYS[1], id)
  redis.call("ZREM", KEYS[2], id)
  redis.call("DEL", ARGV[1] .. id)
end
for i = 3, #ARGV, 4 do
  redis.call("SET", ARGV[1] .. ARGV[i], ARGV[i + 2], "EXAT", ARGV[i + 3])
  redis.call("ZADD", KEYS[1], ARGV[i + 1], ARGV[i])
  redis.call("ZADD", KEYS[2], ARGV[i + 1], ARGV[i])
end
return 1`;

/** Reminders in Redis: a record each, a sorted set by due time, and one per user. */
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
    ]);
    const added = await this.redis.eval(
      ADD,
      2,
      this.keys.remindersDue,
      this.keys.remindersOfUser(first.user),
      this.keys.reminder(""),
      perUser,
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
    await this.redis.multi().zrem(this.keys.remindersDue, id).del(this.keys.reminder(id)).exec();
    return true;
  }

  async cancelAll(user: number): Promise<void> {
    const ids = await this.redis.zrange(this.keys.remindersOfUser(user), 0, -1);
    const multi = this.redis.multi().del(this.keys.remindersOfUser(user));
    for (const id of ids) multi.zrem(this.keys.remindersDue, id).del(this.keys.reminder(id));
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
