// `npm run dev`: the bot from source, started again when a file changes, its log made readable
// in a terminal (JSON lines elsewhere). npm runs this as its own child (`exec`), so a SIGTERM
// or SIGINT sent to npm alone reaches the bot through here: the bot drains as in production,
// and this exits with the bot's code.
import { spawn } from "node:child_process";
import pretty from "pino-pretty";

const terminal = Boolean(process.stdout.isTTY);
const bot = spawn(process.execPath, ["--import", "tsx", "--watch", "src/main.ts"], {
  stdio: ["inherit", terminal ? "pipe" : "inherit", "inherit"],
});
if (terminal) bot.stdout.pipe(pretty({ colorize: true }));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => bot.kill(signal));
bot.on("exit", (code) => process.exit(code ?? 1));
