// /txn <checkoutId | reference>: "did my payment go through?" — the provider's transaction,
// with the journal's state when the top-up was made through the bot.
import { Composer } from "grammy";
import { lookUpTransaction } from "../../../domain/support.js";
import type { BotContext } from "../../context.js";
import { escapeHtml } from "../../format/html.js";
import { answer, audited, formatterOf, guarded, type SupportTools, translator } from "./tools.js";
import { journalOnlyText, transactionText } from "./views.js";

/** Checkout ids and our references: letters, digits and a few separators. */
export const TRANSACTION_QUERY = /^[\w.:-]{1,128}$/;

export function createTxn(tools: SupportTools): Composer<BotContext> {
  const txn = new Composer<BotContext>();
  const { deps } = tools;

  txn.command(
    "txn",
    guarded(tools, "txn", async (ctx) => {
      const t = translator(ctx);
      const query = typeof ctx.match === "string" ? ctx.match.trim() : "";
      if (!TRANSACTION_QUERY.test(query)) return answer(ctx, t("support-txn-usage"));
      await audited(tools, ctx, "txn", query);
      const found = await lookUpTransaction(deps.journal, deps.provider, query, deps.logger);
      const fmt = formatterOf(tools, ctx);
      switch (found.kind) {
        case "found":
          return answer(ctx, transactionText(found.transaction, found.entry, t, fmt));
        case "journal-only":
          return answer(ctx, journalOnlyText(found.entry, found.provider, t, fmt));
        case "not-found":
          return answer(ctx, t("support-txn-not-found", { query: escapeHtml(query) }));
        case "failed":
          return answer(ctx, t("support-unavailable"));
      }
    }),
  );

  return txn;
}
