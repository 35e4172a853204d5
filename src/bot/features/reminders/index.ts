// Expiry reminders in the chat: set from the top-up's "Remind me" buttons (remind, handed to
// the top-up feature by bot.ts), /reminders with a button to cancel each, and the admins'
// /reminder_stats. The reminder's message and its Renew button: delivery.ts.
import { Composer, InlineKeyboard } from "grammy";
import type { Reminder } from "../../../domain/reminders.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { callbackCodec } from "../../shared/callback-data.js";
import { escapeHtml } from "../../shared/html.js";
import { localeOf } from "../../shared/i18n.js";
import { bouquetTitle, connectionName, type Translate } from "../../shared/labels.js";
import { shownConnection } from "./delivery.js";
import { remindersFor } from "./times.js";

type ReminderButton = { kind: "cancel"; id: string } | { kind: "cancel-all" };

const reminderButtons = callbackCodec<ReminderButton>(
  "rm",
  (button) => (button.kind === "cancel" ? ["x", button.id] : ["all"]),
  ([op, id, ...rest]) => {
    if (rest.length > 0) return null;
    if (op === "all" && id === undefined) return { kind: "cancel-all" };
    return op === "x" && id !== undefined && /^[a-z0-9]{1,12}$/.test(id)
      ? { kind: "cancel", id }
      : null;
  },
);

/** At most this many are listed, the soonest first. */
const SHOWN = 10;

function listView(reminders: Reminder[], ctx: BotContext, deps: BotDeps) {
  if (reminders.length === 0) return { text: ctx.t("reminders-none"), keyboard: undefined };
  const fmt = deps.formatter(localeOf(ctx));
  const keyboard = new InlineKeyboard();
  const lines = reminders.slice(0, SHOWN).map((reminder) => {
    const bouquet = escapeHtml(bouquetTitle(reminder.bouquet.name, 40));
    const at = fmt.moment(reminder.fireAt);
    const connection = escapeHtml(connectionName(shownConnection(reminder), ctx.t, 30));
    const cancel = reminderButtons.encode({ kind: "cancel", id: reminder.id });
    keyboard.text(ctx.t("reminders-cancel-button", { bouquet, at }), cancel).row();
    return ctx.t("reminders-line", { bouquet, connection, at });
  });
  keyboard.text(ctx.t("reminders-cancel-all"), reminderButtons.encode({ kind: "cancel-all" }));
  return { text: [ctx.t("reminders-title"), ...lines].join("\n"), keyboard };
}

export interface Reminders {
  composer: Composer<BotContext>;
  /**
   * Reminders for one subscription of the tapping user, at its end minus each configured
   * number of days; returns what to tell them.
   */
  remind(
    ctx: BotContext,
    what: Pick<Reminder, "cuid" | "connection" | "bouquet" | "end" | "proved">,
  ): Promise<string>;
}

export function createReminders(deps: BotDeps): Reminders {
  const remind: Reminders["remind"] = async (ctx, what) => {
    const t: Translate = (key, variables) => ctx.t(key, variables);
    const user = ctx.from?.id ?? 0;
    const locale = localeOf(ctx);
    const zone = deps.config.provider.timeZone;
    const base = { ...what, user, language: locale };
    const reminders = remindersFor(base, deps.config.reminderDaysBefore, zone, deps.now());
    if (reminders.length === 0) return t("reminder-too-late");
    const perUser = deps.config.remindersPerUser;
    if (!(await deps.reminders.add(reminders, perUser))) {
      return t("reminder-too-many", { count: perUser });
    }
    deps.wakeReminders();
    const fmt = deps.formatter(locale);
    return t("reminder-set", { dates: reminders.map((r) => fmt.moment(r.fireAt)).join(", ") });
  };

  const reminders = new Composer<BotContext>();
  const chat = reminders.chatType("private");

  // Admins: how many reminders went out, and how many top-ups followed one.
  chat.command("reminder_stats", async (ctx) => {
    if (!deps.config.adminUserIds.includes(ctx.from.id)) {
      await ctx.reply(ctx.t("not-allowed"));
      return;
    }
    const [sent, renewals] = await Promise.all([
      deps.reminders.sentCount(),
      deps.purchases.renewalsAfterReminders(),
    ]);
    await ctx.reply(ctx.t("reminder-stats", { sent, renewals }));
  });

  chat.command("reminders", async (ctx) => {
    const view = listView(await deps.reminders.ofUser(ctx.from.id), ctx, deps);
    await ctx.reply(view.text, { reply_markup: view.keyboard });
  });

  chat.callbackQuery(reminderButtons.filter, async (ctx) => {
    const button = reminderButtons.decode(ctx.callbackQuery.data);
    if (!button) return ctx.answerCallbackQuery(ctx.t("menu-expired"));
    if (button.kind === "cancel-all") await deps.reminders.cancelAll(ctx.from.id);
    else await deps.reminders.cancel(ctx.from.id, button.id);
    await ctx.answerCallbackQuery(
      ctx.t(button.kind === "cancel-all" ? "reminders-all-cancelled" : "reminders-cancelled"),
    );
    const view = listView(await deps.reminders.ofUser(ctx.from.id), ctx, deps);
    await ctx.editMessageText(view.text, { reply_markup: view.keyboard }).catch(() => undefined);
  });
  return { composer: reminders, remind };
}
