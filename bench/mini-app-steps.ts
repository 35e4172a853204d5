// The Mini App's steps against the chat's (bench/mini-app.ts writes the figures): one bot
// process (`node dist/main.js`, as the image runs it; its ledger on a PostgreSQL server of the
// run's own, real Redis) takes the same steps through the app's API (PUBLIC_URL/app/api,
// initData signed for the user) and through the chat (updates through the Telegram emulator,
// timed until the bot's answer arrives there), in interleaved rounds, each journey a new user's
// who has started the bot:
//
//   find a customer by code        app: POST lookup      chat: `/topup 1000002` → "Which connection"
//   open a connection's packages   app: POST catalogue   chat: its button → "Choose a package"
//   choose a package, to confirm   app: no call (drawn   chat: "Renew" → "Please confirm"
//                                  from the catalogue)
//   open a payment (Khalti's link) app: POST purchases   chat: "Pay with Khalti" → the link's message
//
// Either side's step makes the same provider or Khalti call. The provider sandbox, the Khalti
// sandbox, the emulator and the simulated users run in this process.
import { performance } from "node:perf_hooks";
import { sign } from "@telegram-apps/init-data-node";
import { startProcessStack } from "../test/support/bot-process.js";
import { freePort } from "../test/support/ports.js";
import { startOwnPostgres } from "../test/support/postgres-server.js";
import { BOT_TOKEN } from "../test/support/stack.js";
import { createKhaltiSandbox } from "../tools/khalti-sandbox/server.js";
import type { ChatUser } from "../tools/telegram-emulator/index.js";

export const STEPS = ["lookup", "catalogue", "confirm", "payment"] as const;
export type Step = (typeof STEPS)[number];
/** A journey's steps, in ms (the app's confirm makes no call: 0). */
type Journey = Record<Step, number>;

/** One run's journeys, by side; `settled`: the chat's payment step until its last answer. */
export interface StepRun {
  app: Journey[];
  chat: (Journey & { settled: number })[];
}

const KHALTI_SECRET = "bench-mini-app-khalti";
/** Sita Sharma: three TV connections, the first with a subscription to renew. */
const CODE = "1000002";
const WAIT = { timeoutMs: 30_000 };

/** One run on a bot process of its own: `warmUp` journeys a side, then the rounds. */
export async function appAgainstChat(sizes: {
  rounds: number;
  perRound: number;
  warmUp: number;
}): Promise<StepRun> {
  const postgres = await startOwnPostgres();
  const khalti = await createKhaltiSandbox({ secretKey: KHALTI_SECRET });
  const stack = await startProcessStack("bench_mini_app", { postgresUrl: postgres.url });
  // What ships (`npm run build` first): dist/main.js, its page in dist/webapp.
  process.env.TEST_BOT_BUNDLE = "1";
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  try {
    const bot = stack.startBot({
      PAYMENT_MODE: "",
      PAYMENT_METHODS: "khalti,telegram",
      PAYMENT_PROVIDER_TOKEN: "284685063:TEST:bench",
      CURRENCY: "NPR",
      KHALTI_SECRET_KEY: KHALTI_SECRET,
      KHALTI_BASE_URL: khalti.url,
      PUBLIC_URL: base,
      HTTP_PORT: String(port),
      HTTP_HOST: "127.0.0.1",
      // Simulated users step faster than people, and every journey looks a customer up.
      FLOOD_LIMIT: "1000",
      LOOKUP_LIMIT: "10000",
      TELEGRAM_POLL_TIMEOUT_SECONDS: "30",
      LOG_LEVEL: "warn",
    });
    // What the bot says (warnings and worse; a configuration it refuses) is shown here.
    bot.child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    bot.child.stdout?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    const exited = bot.exited.then((code) => {
      throw new Error(`the bot exited (${code})`);
    });
    exited.catch(() => undefined);

    let nextUser = 71_000;
    /** A new user who has started the bot (as one who opens its app from the chat has). */
    const started = async (name: string): Promise<ChatUser> => {
      const user = stack.emulator.user({ id: nextUser++, first_name: name, language_code: "en" });
      const welcome = user.waitForText("Welcome", WAIT);
      user.sendText("/start");
      await Promise.race([welcome, exited]);
      return user;
    };

    const chatJourney = async (): Promise<Journey & { settled: number }> => {
      const user = await started("Chat");
      /** From the update sent to the bot's answer matching `answer` in the emulator. */
      const timed = async (answer: string, act: () => void): Promise<number> => {
        const begun = performance.now();
        const answered = user.waitForText(answer, WAIT);
        act();
        await answered;
        return performance.now() - begun;
      };
      const lookup = await timed("Which connection", () => user.sendText(`/topup ${CODE}`));
      const catalogue = await timed("Choose a package", () => user.press(/••••0021/));
      const confirm = await timed("Please confirm", () => user.press(/Renew/));
      // The link's message is what the buyer pays with; the summary above it is edited after.
      const begun = performance.now();
      const link = user.waitForText("with Khalti below", WAIT);
      const summary = user.waitForText("Pay with the Khalti link below", WAIT);
      user.press(/Pay with Khalti/);
      await link;
      const payment = performance.now() - begun;
      await summary;
      return { lookup, catalogue, confirm, payment, settled: performance.now() - begun };
    };

    const appJourney = async (): Promise<Journey> => {
      const user = await started("App");
      const initData = sign(
        { user: { id: user.id, first_name: "App", language_code: "en" } },
        BOT_TOKEN,
        new Date(),
      );
      /** A call as the page makes it, until its answer is read. */
      const call = async (path: string, body: unknown) => {
        const begun = performance.now();
        const response = await fetch(`${base}/app/api/${path}`, {
          method: "POST",
          headers: { authorization: `tma ${initData}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const answer = (await response.json()) as Record<string, unknown>;
        if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
        return { ms: performance.now() - begun, answer };
      };
      const lookup = await call("lookup", { code: CODE });
      const catalogue = await call("catalogue", { ref: "found-0" });
      const bouquets = catalogue.answer.bouquets as { index: number; renews: boolean }[];
      const payment = await call("purchases", {
        journey: catalogue.answer.journey,
        bouquet: bouquets.find((b) => b.renews)?.index,
        method: "khalti",
      });
      if (typeof payment.answer.link !== "string") throw new Error("no Khalti link in the app");
      return { lookup: lookup.ms, catalogue: catalogue.ms, confirm: 0, payment: payment.ms };
    };

    // Not counted: the first journeys of each side (the bot's code paths compiled).
    for (let i = 0; i < sizes.warmUp; i++) {
      await appJourney();
      await chatJourney();
    }
    const run: StepRun = { app: [], chat: [] };
    for (let round = 0; round < sizes.rounds; round++) {
      // Who goes first alternates by round.
      const sides = round % 2 === 0 ? (["app", "chat"] as const) : (["chat", "app"] as const);
      for (const side of sides) {
        for (let i = 0; i < sizes.perRound; i++) {
          if (side === "app") run.app.push(await appJourney());
          else run.chat.push(await chatJourney());
        }
      }
    }
    return run;
  } finally {
    await stack.stop();
    await khalti.close();
    await postgres.stop();
  }
}
