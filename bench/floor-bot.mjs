// The floor: a bare grammY bot doing what a page turn needs and nothing else (runner, one
// handler that answers the tap and edits the message). `bench/ratio.ts` compares against it.
import { run } from "@grammyjs/runner";
import { Bot, InlineKeyboard } from "grammy";

const bot = new Bot(process.env.BOT_TOKEN ?? "", {
  client: { apiRoot: process.env.TELEGRAM_API_ROOT },
});
const pages = (page) =>
  new InlineKeyboard().text("‹ Prev", `p:${page - 1}`).text("Next ›", `p:${page + 1}`);

bot.command("start", (ctx) => ctx.reply("Page 1", { reply_markup: pages(1) }));
bot.callbackQuery(/^p:(-?\d+)$/, async (ctx) => {
  const page = Number(ctx.match[1]);
  await ctx.answerCallbackQuery();
  await ctx.editMessageText(`Page ${page}`, { reply_markup: pages(page) });
});

const timeout = Number(process.env.TELEGRAM_POLL_TIMEOUT_SECONDS ?? 30);
const runner = run(bot, { runner: { fetch: { timeout } } });
const stop = () => {
  if (runner.isRunning()) runner.stop().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
