// Every update passes this gate, in one Redis command on the way in and one on the way out:
// in, the update id is checked and marked in progress (lapsing with the chat's lock, so that a
// process dying mid-update lets Telegram's redelivery through), the chat's lock is taken (one
// update of a chat at a time across instances) and the chat's session is read; out, the update
// id is marked done for a day, the session written if it changed and the lock released.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";
import { RELEASE } from "./lease.js";

// KEYS: update, chat lock ("" = none), session ("" = none), flow-busy ("" = no bypass).
// ARGV: lock token, lock ms (also the update's "in progress" mark).
const ENTER = `
if redis.call("EXISTS", KEYS[1]) == 1 then return {0} end
local bypass = KEYS[4] ~= "" and redis.call("EXISTS", KEYS[4]) == 1
local locked = 0
if KEYS[2] ~= "" and not bypass then
  if not redis.call("SET", KEYS[2], ARGV[1], "PX", ARGV[2], "NX") then return {1} end
  locked = 1
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
local session = false
if KEYS[3] ~= "" then session = redis.call("GET", KEYS[3]) end
return {2, session, locked}`;

// KEYS: update, chat lock ("" = none held), session ("" = none). ARGV: lock token, session
// ("" = as it was, "-" = delete, else the JSON to write), session seconds, seconds an update id
// is remembered.
const LEAVE = `
redis.call("SET", KEYS[1], "done", "EX", ARGV[4])
local held = KEYS[2] == "" or redis.call("GET", KEYS[2]) == ARGV[1]
if held and KEYS[3] ~= "" and ARGV[2] ~= "" then
  if ARGV[2] == "-" then redis.call("DEL", KEYS[3])
  else redis.call("SET", KEYS[3], ARGV[2], "EX", ARGV[3]) end
end
if KEYS[2] ~= "" and held then redis.call("DEL", KEYS[2]) end
if held then return 1 end
return 0`;

// KEYS: update, chat lock ("" = none held). ARGV: lock token, lock ms.
const RENEW = `
for _, key in ipairs(KEYS) do
  if key ~= "" and redis.call("GET", key) == ARGV[1] then redis.call("PEXPIRE", key, ARGV[2]) end
end`;

const UPDATE_MEMORY_SECONDS = 86_400;

export interface GateOptions {
  /** A chat's lock lapses this long after its holder died (renewed while it works). */
  lockMs: number;
  sessionSeconds: number;
  /** How long an update waits for its chat's lock before it is handled anyway. */
  waitMs: number;
}

interface Ticket {
  updateKey: string;
  lockKey: string;
  sessionKey: string;
  token: string;
  renewal: NodeJS.Timeout;
}

type Entry = { kind: "duplicate" } | { kind: "entered"; session: string | null; ticket: Ticket };

/** The bot's UpdateGate (src/bot/shared/update-gate.ts) in Redis. */
export class RedisUpdateGate {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly options: GateOptions,
  ) {}

  async enter(updateId: number, chatId: number | undefined, skipsLock: boolean): Promise<Entry> {
    const token = randomUUID();
    const chat = chatId === undefined ? undefined : String(chatId);
    const keys = [
      this.keys.update(updateId),
      chat === undefined ? "" : this.keys.chatLock(chat),
      chat === undefined ? "" : this.keys.session(chat),
      chatId !== undefined && skipsLock ? this.keys.flowBusy(chatId) : "",
    ];
    const args = [token, this.options.lockMs];
    const deadline = Date.now() + this.options.waitMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const [state, session, locked] = (await this.redis
        .eval(ENTER, 4, ...keys, ...args)
        .catch((error: unknown) => {
          // A command that timed out may still run when Redis answers again: the releases,
          // sent right after it on the same connection, run after it and free the update and
          // the chat.
          for (const key of keys.slice(0, 2).filter(Boolean)) {
            this.redis.eval(RELEASE, 1, key, token).catch(() => undefined);
          }
          throw error;
        })) as [number, unknown, number];
      if (state === 0) return { kind: "duplicate" };
      if (state === 2) {
        const read = typeof session === "string" ? session : null;
        return { kind: "entered", session: read, ticket: this.ticket(keys, token, locked) };
      }
      // Another instance handles this chat: wait for its turn, but not for ever.
      if (Date.now() > deadline) keys[1] = "";
      else await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** Whether an update of the chat holds its turn now, on any instance. */
  async busy(chatId: number): Promise<boolean> {
    return (await this.redis.exists(this.keys.chatLock(String(chatId)))) === 1;
  }

  async leave(ticket: Ticket, session: string | null | undefined): Promise<boolean> {
    const { updateKey, lockKey, sessionKey, token, renewal } = ticket;
    clearInterval(renewal);
    const value = session === undefined ? "" : session === null ? "-" : session;
    const held = await this.redis.eval(
      LEAVE,
      3,
      updateKey,
      lockKey,
      sessionKey,
      token,
      value,
      this.options.sessionSeconds,
      UPDATE_MEMORY_SECONDS,
    );
    return held === 1;
  }

  private ticket(keys: string[], token: string, locked: number): Ticket {
    const updateKey = keys[0] as string;
    const lockKey = locked === 1 ? (keys[1] as string) : "";
    // The update's mark and the chat's lock last as long as the update runs, and lapse together.
    const renewal = setInterval(
      () =>
        void this.redis
          .eval(RENEW, 2, updateKey, lockKey, token, this.options.lockMs)
          .catch(() => undefined),
      Math.max(50, this.options.lockMs / 3),
    );
    renewal.unref();
    return { updateKey, lockKey, sessionKey: keys[2] as string, token, renewal };
  }
}
