// The Telegram side of paying: the Confirm button starts TopupService.purchase in the
// background (so a slow provider never holds the chat), and its outcome is told to the user.
import { randomBytes } from "node:crypto";
import type { Api } from "grammy";
import type { JournalEntry } from "../../../domain/journal.js";
import type { PackageOffer } from "../../../domain/model.js";
import type { PurchaseIntent, PurchaseOutcome, TopupService } from "../../../domain/topup.js";
import { errorFields, type Logger } from "../../../logger.js";
import type { BotDeps } from "../../deps.js";
import type { OutcomeMessenger } from "../../outcome-messenger.js";
import { journeyFromOffer } from "./journey.js";
import { confirmView, overviewView } from "./views.js";

export const newJourneyId = () => randomBytes(5).toString("hex");

export class PurchaseRunner {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly deps: BotDeps,
    private readonly topups: TopupService,
    private readonly messenger: OutcomeMessenger,
    private readonly api: Api,
    private readonly logger: Logger,
  ) {}

  start(intent: PurchaseIntent): void {
    const task = this.run(intent)
      .catch((error: unknown) => this.logger.error(errorFields(error), "purchase task failed"))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  /** Waits for purchases under way (graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async run(intent: PurchaseIntent): Promise<void> {
    const { chatId, language } = intent;
    const outcome = await this.topups.purchase(intent, {
      onChecking: () => this.quietly(this.messenger.say(chatId, language, "checking-payment")),
    });
    this.deps.metrics.purchases.inc({ outcome: outcome.kind });
    this.logger.info(
      {
        outcome: outcome.kind,
        checkoutId: "entry" in outcome ? outcome.entry.checkoutId : undefined,
      },
      "purchase finished",
    );
    await this.tell(intent, outcome);
  }

  private async tell(intent: PurchaseIntent, outcome: PurchaseOutcome): Promise<void> {
    const { chatId, language } = intent;
    switch (outcome.kind) {
      case "done":
        await this.deps.subscribers.noteService(intent.userId, intent.connection.service);
        return this.deliver(outcome.entry);
      case "not-charged":
        return this.deliver(outcome.entry);
      case "still-checking":
        return this.messenger.say(chatId, language, "still-checking");
      case "rejected":
        return this.messenger.say(chatId, language, "purchase-rejected", { code: outcome.code });
      case "unavailable":
      case "unauthorized":
        return this.messenger.say(chatId, language, "provider-unavailable");
      case "busy":
        return this.messenger.say(chatId, language, "purchase-busy");
      case "duplicate":
        return;
      case "price-changed":
        return this.offerAgain(intent, outcome.offer, outcome.bouquet.code);
      case "bouquet-gone":
        return this.offerAgain(intent, outcome.offer, null);
    }
  }

  /** A receipt not delivered now is delivered by reconciliation later. */
  private async deliver(entry: JournalEntry): Promise<void> {
    await this.messenger.deliverEntry(entry);
    await this.deps.journal.delivered(entry.checkoutId);
  }

  /** The price changed (ask again at the new price) or the bouquet is gone (show the list). */
  private async offerAgain(intent: PurchaseIntent, offer: PackageOffer, code: string | null) {
    const t = (key: string, variables?: Record<string, string | number>) =>
      this.messenger.translate(intent.language, key, variables);
    const fmt = this.deps.formatter(intent.language);
    const now = this.deps.now();
    const journey = journeyFromOffer(newJourneyId(), offer, now);
    const index = code === null ? -1 : journey.bouquets.findIndex((b) => b.code === code);
    let view: ReturnType<typeof overviewView>;
    if (index >= 0) {
      const back = { op: "overview" } as const;
      journey.selected = { bouquet: index, intentId: `${journey.id}-${index}`, back };
      const note = t("price-changed", {
        old: fmt.amount(intent.bouquet.price),
        new: fmt.amount(journey.bouquets[index]?.price ?? 0),
      });
      view = confirmView(journey, index, back, t, fmt, note);
    } else {
      const overview = overviewView(journey, t, fmt, now);
      view = { ...overview, text: `${t("bouquet-gone")}\n\n${overview.text}` };
    }
    const message = await this.api.sendMessage(intent.chatId, view.text, {
      parse_mode: "HTML",
      reply_markup: view.keyboard,
    });
    await this.deps.sessions.update(intent.chatId, (session) => ({
      ...session,
      journey: { ...journey, menuMessageId: message.message_id },
    }));
  }

  private async quietly(task: Promise<unknown>): Promise<void> {
    try {
      await task;
    } catch (error) {
      this.logger.warn(errorFields(error), "could not send a progress message");
    }
  }
}
