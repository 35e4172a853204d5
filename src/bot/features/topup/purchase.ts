// The Telegram side of paying: the Confirm button starts TopupService.purchase in the
// background (so a slow provider never holds the chat), and its outcome is told to the buyer.
import type { PackageOffer } from "../../../domain/model.js";
import { sameAmount } from "../../../domain/money.js";
import { TaskGroup } from "../../../domain/task-group.js";
import type { PurchaseIntent, PurchaseOutcome } from "../../../domain/topup.js";
import type { BotDeps } from "../../deps.js";
import { newFlowId } from "../../shared/flow.js";
import type { Translate } from "../../shared/labels.js";
import { confirmScreen } from "./confirm-screen.js";
import { type Journey, journeyFromOffer } from "./journey.js";
import type { TelegramOutcomes } from "./outcomes.js";
import { overviewView } from "./views.js";

export class PurchaseRunner {
  private readonly running: TaskGroup;

  constructor(
    private readonly deps: BotDeps,
    private readonly outcomes: TelegramOutcomes,
  ) {
    this.running = new TaskGroup((error) =>
      deps.logger.error({ err: error }, "purchase task failed"),
    );
  }

  start(intent: PurchaseIntent): void {
    this.running.track(this.run(intent));
  }

  /** Waits for purchases under way (graceful shutdown). */
  drain(): Promise<void> {
    return this.running.drain();
  }

  private async run(intent: PurchaseIntent): Promise<void> {
    const outcome = await this.deps.topups.purchase(intent, {
      onChecking: () => this.quietly(this.say(intent, "checking-topup")),
    });
    const settled = "purchase" in outcome ? outcome.purchase : undefined;
    const labels = {
      outcome: outcome.kind === "settled" ? (settled?.phase ?? "") : outcome.kind,
      reason: settled?.reason ?? "",
    };
    this.deps.metrics.purchases.inc(labels);
    this.deps.logger.info({ ...labels, purchaseId: settled?.id }, "purchase finished");
    await this.followUp(intent, outcome);
  }

  /** The outcome itself was told by the domain; what is left is the Telegram side of it. */
  private async followUp(intent: PurchaseIntent, outcome: PurchaseOutcome): Promise<void> {
    switch (outcome.kind) {
      case "settled":
        if (outcome.purchase.phase === "charged") {
          // The registry is a nicety: a failing store must not look like a failed purchase.
          await this.deps.subscribers
            .noteService(intent.buyer, intent.connection.service)
            .catch(() => undefined);
        }
        return;
      case "offer-changed":
        return this.offerAgain(intent, outcome.offer, outcome.bouquet?.code ?? null);
      case "busy":
        return this.say(intent, "purchase-busy");
      case "store-unavailable":
        return this.say(intent, "store-unavailable");
      case "duplicate":
        return;
    }
  }

  private say(intent: PurchaseIntent, key: string): Promise<void> {
    return this.outcomes.say(intent.buyer, intent.language, key);
  }

  /**
   * The price or name changed (ask again, saying what changed) or the bouquet is gone (show
   * the list). The new journey waits as a draft: the chat's session is only written by the
   * chat's own updates.
   */
  private async offerAgain(intent: PurchaseIntent, offer: PackageOffer, code: string | null) {
    const t: Translate = (key, variables) => this.deps.i18n.t(intent.language, key, variables);
    const fmt = this.deps.formatter(intent.language);
    const now = this.deps.now();
    const journey: Journey = journeyFromOffer(newFlowId(), offer, now, intent.proved !== true);
    const index = code === null ? -1 : journey.bouquets.findIndex((b) => b.code === code);
    let view: ReturnType<typeof overviewView>;
    const current = journey.bouquets[index];
    if (current) {
      const note = sameAmount(current.price, intent.bouquet.price)
        ? t("package-changed")
        : t("price-changed", {
            old: fmt.amount(intent.bouquet.price),
            new: fmt.amount(current.price),
          });
      view = confirmScreen(journey, index, { op: "overview" }, t, fmt, {
        note,
        methods: this.deps.payments?.methods ?? [],
      });
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
