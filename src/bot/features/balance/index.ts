// /balance: the integrator's balance at the provider as the bot expects it, for admins in a
// private chat; `/balance add <amount> [note]` records a deposit, `/balance set <amount>` a
// reading of the provider's portal. Bad input is answered and nothing is stored.
import { Composer } from "grammy";
import { parseMinorUnits } from "../../../domain/provider-balance.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { localeOf } from "../../shared/i18n.js";

export function createBalance(deps: BotDeps): Composer<BotContext> {
  const balance = new Composer<BotContext>();
  const digits = deps.config.payment?.minorDigits ?? 2;
  balance.chatType("private").command("balance", async (ctx) => {
    // The currency and the reader's separators: "NPR 2,780.50", "नेरू २,७८०.५०".
    const fmt = deps.formatter(localeOf(ctx));
    const money = (minor: bigint) => fmt.minor(minor, digits);
    if (!deps.config.adminUserIds.includes(ctx.from.id)) {
      await ctx.reply(ctx.t("not-allowed"));
      return;
    }
    const [verb = "", amountText = "", ...noteWords] = ctx.match.trim().split(/\s+/);
    if (verb === "add" || verb === "set") {
      const amountMinor = parseMinorUnits(amountText, digits);
      const note = noteWords.join(" ").slice(0, 200);
      if (amountMinor === null || (verb === "set" && note !== "")) {
        await ctx.reply(ctx.t("balance-bad-amount", { digits }));
        return;
      }
      const kind = verb === "add" ? "deposit" : "reading";
      await deps.providerBalance.record({ kind, amountMinor, note, admin: ctx.from.id });
      await ctx.reply(ctx.t(`balance-recorded-${kind}`, { amount: money(amountMinor) }));
      await deps.checkBalance();
    } else if (verb !== "") {
      await ctx.reply(ctx.t("balance-usage"));
      return;
    }
    const now = await deps.providerBalance.expected();
    await ctx.reply(
      [
        ctx.t("balance-expected", { amount: money(now.expectedMinor) }),
        now.lastReading === null
          ? ctx.t("balance-no-reading")
          : ctx.t("balance-last-reading", {
              amount: money(now.lastReading.amountMinor),
              at: fmt.moment(now.lastReading.at.getTime()),
            }),
        ctx.t("balance-since", {
          deposits: money(now.depositsSinceMinor),
          charged: money(now.chargedSinceMinor),
        }),
      ].join("\n"),
    );
  });
  return balance;
}
