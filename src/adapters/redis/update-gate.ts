// Every update passes this gate, in one Redis command on the way in and one on the way out:
// in, the update id is checked and taken (exactly once across instances), the chat's lock is
// taken (one update of a chat at a time across instances) and the chat's session is read;
// out, the session is written if it changed and the lock is released.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { RedisKeys } from "./keys.js";
import { RELEASE } from "./lease.js";

// KEYS: update, chat lock ("" = none), session ("" = none), flow-busy ("" = no bypass).
// ARGV: lock token, lock ms, seconds an update id is remembered.
const ENTER = `
if redis.call("EXISTS", KEYS[1]) == 1 then return {0} end
local bypass = KEYS[4] ~= "" and redis.call("EXISTS", KEYS[4]) == 1
local locked = 0
if KEYS[2] ~= "" and not bypass then
  if not redis.call("SET", KEYS[2], ARGV[1], "PX", ARGV[2], "NX") then return {1} end
  locked = 1
end
redis.call("SET", KEYS[1], "1", "EX", ARGV[3])
local session = false
if KEYS[3] ~= "" then session = redis.call("GET", KEYS[3]) end
return {2, session, locked}`;

// KEYS: chat lock ("" = none held), session ("" = none). ARGV: lock token, session ("" = as it
// was, "-" = delete, else the JSON to write), session seconds.
const LEAVE = `
local held = KEYS[1] == "" or redis.call("GET", KEYS[1]) == ARGV[1]
if held and KEYS[2] ~= "" and ARGV[2] ~= "" then
  if ARGV[2] == "-" then redis.call("DEL", KEYS[2])
  else redis.call("SET", KEYS[2], ARGV[2], "EX", ARGV[3]) end
end
if KEYS[1] ~= "" and held then redis.call("DEL", KEYS[1]) end
if held then return 1 end
return 0`;

const RENEW = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`;

const UPDATE_MEMORY_SECONDS = 86_400;

export interface GateOptions {
  /** A chat's lock lapses this long after its holder died (renewed while it works). */
  lockMs: number;
  sessionSeconds: number;
  /** How long an update waits for its chat's lock before it is handled anyway. */
  waitMs: number;
}

interface Ticket {
  lockKey: string;
  sessionKey: string;
  token: string;
  renewal: NodeJS.Timeout | undefined;
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
    const args = [token, this.options.lockMs, UPDATE_MEMORY_SECONDS];
    const deadline = Date.now() + this.options.waitMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const [state, session, locked] = (await this.redis
        .eval(ENTER, 4, ...keys, ...args)
        .catch((error: unknown) => {
          // A command that timed out may still run when Redis answers again: the release,
          // sent right after it on the same connection, runs after it and frees the chat.
          if (keys[1]) this.redis.eval(RELEASE, 1, keys[1], token).catch(() => undefined);
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

  async leave(ticket: Ticket, session: string | null | undefined): Promise<boolean> {
    const { lockKey, sessionKey, token, renewal } = ticket;
    clearInterval(renewal);
    const value = session === undefined ? "" : session === null ? "-" : session;
    const held = await this.redis.eval(
      LEAVE,
      2,
      lockKey,
      sessionKey,
      token,
      value,
      this.options.sessionSeconds,
    );
    return held === 1;
  }

  private ticket(keys: string[], token: string, locked: number): Ticket {
    const lockKey = locked === 1 ? (keys[1] as string) : "";
    const renewal = lockKey
      ? setInterval(
          () =>
            void this.redis
              .eval(RENEW, 1, lockKey, token, this.options.lockMs)
              .catch(() => undefined),
          Math.max(50, this.options.lockMs / 3),
        )
      : undefined;
    renewal?.unref();
    return { lockKey, sessionKey: keys[2] as string, token, renewal };
  }
}
