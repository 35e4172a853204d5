// /reconcile [day | first..last] (yesterday by default, at most 31 days) and /resolve ID NOTE,
// for admins in a private chat. A run is worked on in the background, paced, and its report
// follows when it ends; bad input and anyone but an admin get one clear answer and nothing runs.
import { Composer } from "grammy";
import { DateTime } from "luxon";
import { daysAsked } from "../../../domain/reconcile-days.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { daysName } from "./views.js";

/** A note says what was done; longer ones are cut (the ledger keeps 500 characters). */
const NOTE_MAX = 500;

export function yesterdayIn(zone: string, now: number): string {
  return DateTime.fromMillis(now, { zone }).minus({ days: 1 }).toISODate() as string;
}

export function createReconcile(deps: BotDeps): Composer<BotContext> {
  const reconcile = new Composer<BotContext>();
  const admins = reconcile
    .chatType("private")
    .filter((ctx) => deps.config.adminUserIds.includes(ctx.from.id));
  admins.command("reconcile", async (ctx) => {
    const zone = deps.config.provider.timeZone;
    const yesterday = yesterdayIn(zone, deps.now());
    const asked = daysAsked(ctx.match, yesterday);
    if (!asked.ok) {
      await ctx.reply(ctx.t(`reconcile-${asked.problem}`, { zone, yesterday }));
      return;
    }
    const first = asked.days[0] ?? yesterday;
    const last = asked.days.at(-1) ?? first;
    await deps.reconciliations.request({ first, last }, ctx.from.id);
    await ctx.reply(ctx.t("reconcile-started", { days: daysName(first, last) }));
  });
  admins.command("resolve", async (ctx) => {
    const [id = "", ...words] = ctx.match.trim().split(/\s+/);
    const note = words.join(" ").slice(0, NOTE_MAX);
    if (!/^\d{1,18}$/.test(id) || note === "") {
      await ctx.reply(ctx.t("resolve-usage"));
      return;
    }
    const done = await deps.reconciliations.resolve(id, ctx.from.id, note);
    await ctx.reply(ctx.t(done ? "resolve-done" : "resolve-unknown", { id }));
  });
  reconcile
    .chatType("private")
    .command(["reconcile", "resolve"], (ctx) => ctx.reply(ctx.t("not-allowed")));
  return reconcile;
}
