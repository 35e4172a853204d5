// /report [day | first..last]: the finance report, for admins in a private chat. Everyone else
// gets the answer every admin command gives them, and nothing of the report.
import { Composer } from "grammy";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../shared/i18n.js";
import { sendReport } from "./delivery.js";
import { parsePeriod, today } from "./period.js";

export function createReport(deps: BotDeps): Composer<BotContext> {
  const report = new Composer<BotContext>();
  report.chatType("private").command("report", async (ctx) => {
    if (!deps.config.adminUserIds.includes(ctx.from.id)) {
      await ctx.reply(ctx.t("not-allowed"));
      return;
    }
    const zone = deps.config.provider.timeZone;
    const now = deps.now();
    const answer = parsePeriod(ctx.match, zone, now);
    if (!answer.ok) {
      await ctx.reply(ctx.t(`report-${answer.problem}`, { today: today(zone, now), zone }));
      return;
    }
    await sendReport(ctx.api, ctx.chat.id, localeOf(ctx), answer.period, deps);
  });
  return report;
}
