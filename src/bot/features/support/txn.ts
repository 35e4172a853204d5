// /txn <transaction id | checkout id | reference>: "did my payment go through?" — the
// provider's transaction, with the purchase's state when the top-up was made through the bot.
// Customers quote the transaction id printed on their receipt.
import { Composer } from "grammy";
import { lookUpTransaction } from "../../../domain/support.js";
import type { BotContext } from "../../context.js";
import type { BotDeps } from "../../deps.js";
import { escapeHtml } from "../../shared/html.js";
import { audited } from "../../shared/staff.js";
import { answer, formatterOf, translator } from "./audit.js";
import { purchaseOnlyText, transactionText } from "./views.js";

/** Transaction and checkout ids and our references: letters, digits and a few separators. */
const TRANSACTION_QUERY = /^[\w.:-]{1,128}$/;

export function createTxn(deps: BotDeps): Composer<BotContext> {
  const txn = new Composer<BotContext>();

  txn.command("txn", async (ctx) => {
    const t = translator(ctx);
    const query = ctx.match.trim();
    if (!TRANSACTION_QUERY.test(query)) return answer(ctx, t("support-txn-usage"));
    await audited(deps, ctx, "txn", query);
    const found = await lookUpTransaction(deps.purchases, deps.provider, query, deps.logger);
    const fmt = formatterOf(deps, ctx);
    switch (found.kind) {
      case "found":
        return answer(ctx, transactionText(found.transaction, found.purchase, t, fmt));
      case "purchase-only":
        return answer(ctx, purchaseOnlyText(found.purchase, found.provider, t, fmt));
      case "not-found":
        return answer(ctx, t("support-txn-not-found", { query: escapeHtml(query) }));
      case "failed":
        return answer(ctx, t("support-unavailable"));
    }
  });

  return txn;
}
