// A bot process in webhook mode, ready (its /readyz says 200) before it is handed back.
import type { BotProcess, ProcessStack } from "./bot-process.js";
import { freePort } from "./ports.js";
import { httpStatus, until } from "./wait.js";

export const SECRET = "e2e_webhook-Secret0-long-enough-32";

export interface Replica {
  bot: BotProcess;
  base: string;
  /** The metrics listener's address. */
  metricsBase: string;
}

/** A replica in webhook mode; `webhookUrl` may name the replica's own address. */
export async function startReplica(
  stack: ProcessStack,
  webhookUrl: string | ((base: string) => string),
  env: Record<string, string> = {},
): Promise<Replica> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const bot = stack.startBot({
    WEBHOOK_URL: typeof webhookUrl === "string" ? webhookUrl : webhookUrl(base),
    WEBHOOK_SECRET: SECRET,
    HTTP_PORT: String(port),
    HTTP_HOST: "127.0.0.1",
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: "info",
    ...env,
  });
  await until(async () => (await httpStatus(`${base}/readyz`)) === 200, 20_000);
  return { bot, base, metricsBase: `http://127.0.0.1:${metricsPort}` };
}
