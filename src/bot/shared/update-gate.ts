// The gate every update passes before the features: handled once across all instances (a
// duplicate from Telegram, a retry of a webhook, another replica is dropped while the update is
// under way or done; one whose process died under way is let through again), one update of a
// chat at a time across instances, and the chat's session read on the way in and written on the
// way out: two store commands per update, one round trip on the update's path.
import type { MiddlewareFn } from "grammy";
import type { Log } from "../../domain/ports.js";
import type { BotContext, SessionData } from "../context.js";
import type { ChatTurns } from "./earlier-updates.js";

/** What the gate needs back on the way out; its own business. */
type GateTicket = unknown;

type GateEntry =
  | { kind: "duplicate" }
  | { kind: "entered"; session: string | null; ticket: GateTicket };

/** `busy`: whether an update of the chat holds its turn now, on any instance. */
export interface UpdateGate extends ChatTurns {
  /**
   * Takes the update and its chat (waiting for the chat's turn) and reads the chat's session.
   * `skipsLock`: when the chat's flow waits for the provider, do not wait for its turn.
   */
  enter(updateId: number, chatId: number | undefined, skipsLock: boolean): Promise<GateEntry>;
  /** Writes the session (undefined: unchanged; null: deleted) and frees the chat. */
  leave(ticket: GateTicket, session: string | null | undefined): Promise<boolean>;
}

/**
 * Installs ctx.session over the gate's read and write. `skipsLock` says which updates may run
 * beside their chat's current one (/cancel while the provider is slow).
 */
export function gated(
  gate: UpdateGate,
  log: Log,
  skipsLock: (ctx: BotContext) => boolean,
): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const updateId = ctx.update.update_id;
    const entry = await gate.enter(updateId, ctx.chat?.id, skipsLock(ctx));
    if (entry.kind === "duplicate") {
      log.info({ updateId }, "duplicate update dropped");
      return;
    }
    const read = entry.session;
    let session: SessionData = read === null ? {} : (JSON.parse(read) as SessionData);
    Object.defineProperty(ctx, "session", {
      get: () => session,
      set: (value: SessionData | null | undefined) => {
        session = value ?? {};
      },
      configurable: true,
    });
    let written: string | undefined;
    try {
      await next();
      const now = JSON.stringify(session);
      written = now === (read ?? "{}") ? undefined : now;
    } finally {
      // Not awaited: the answer is out, and the chat's next update, on this instance or another,
      // enters only after this (same connection, in order; or the chat's lock). A store that
      // fails here has answered the update already: nothing to apologise for.
      void gate.leave(entry.ticket, written).then(
        (held) => {
          if (!held) log.warn({ updateId }, "the chat's turn lapsed: its session was not written");
        },
        () => undefined,
      );
    }
  };
}
