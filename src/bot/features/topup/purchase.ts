// The Telegram side of paying: the Confirm button starts TopupService.purchase in the
// background (so a slow provider never holds the chat), and its outcome is told to the buyer.
import type { PackageOffer } from "../../../domain/model.js";
import type { PurchaseIntent, PurchaseOutcome } from "../../../domain/topup.js";
import type { BotDeps } from "../../deps.js";
import { newFlowId } from "../../shared/flow.js";
import type { Translate } from "../../shared/labels.js";
import { type Journey, journeyFromOffer } from "./journey.js";
import type { TelegramOutcomes } from "./outcomes.js";
import { confirmView, overviewView } from "./views.js";

export class PurchaseRunner {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly deps: BotDeps,
    private readonly outcomes: TelegramOutcomes,
  ) {}

  start(intent: PurchaseIntent): void {
    const task = this.run(intent)
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "purchase task failed"))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  /** Waits for purchases under way (graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async run(intent: PurchaseIntent): Promise<void> {
    const outcome = await this.deps.topups.purchase(intent, {
      onChecking: () => this.quietly(this.say(intent, "checking-payment")),
    });
    const label = outcome.kind === "settled" ? outcome.entry.state : outcome.kind;
    this.deps.metrics.purchases.inc({ outcome: label });
    this.deps.logger.info(
      { outcome: label, checkoutId: "entry" in outcome ? outcome.entry.checkoutId : undefined },
      "purchase finished",
    );
    await this.tell(intent, outcome);
  }

  private async tell(intent: PurchaseIntent, outcome: PurchaseOutcome): Promise<void> {
    switch (outcome.kind) {
      case "settled":
        if (outcome.entry.state === "done") {
          await this.deps.subscribers.noteService(intent.buyer, intent.connection.service);
        }
        // Not told now (Telegram down): reconciliation tells it later.
        await this.deps.teller.tell(outcome.entry);
        return;
      case "still-checking":
        return this.say(intent, "still-checking");
      case "unavailable":
      case "unauthorized":
        return this.say(intent, "provider-unavailable");
      case "busy":
        return this.say(intent, "purchase-busy");
      case "duplicate":
        return;
      case "price-changed":
        return this.offerAgain(intent, outcome.offer, outcome.bouquet.code);
      case "bouquet-gone":
        return this.offerAgain(intent, outcome.offer, null);
    }
  }

  private say(intent: PurchaseIntent, key: string): Promise<void> {
    return this.outcomes.say(intent.buyer, intent.language, key);
  }

  /**
   * The price changed (ask again at the new price) or the bouquet is gone (show the list). The
   * new journey waits as a draft: the chat's session is only written by the chat's own updates.
   */
  private async offerAgain(intent: PurchaseIntent, offer: PackageOffer, code: string | null) {
    const t: Translate = (key, variables) => this.deps.i18n.t(intent.language, key, variables);
    const fmt = this.deps.formatter(intent.language);
    const now = this.deps.now();
    const journey: Journey = journeyFromOffer(newFlowId(), offer, now);
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
    await this.deps.drafts.put(intent.buyer, journey.id, journey);
    await this.outcomes.sendMenu(intent.buyer, view.text, view.keyboard);
  }

  private async quietly(task: Promise<unknown>): Promise<void> {
    try {
      await task;
    } catch (error) {
      this.deps.logger.warn({ err: error }, "could not send a progress message");
    }
  }
}
