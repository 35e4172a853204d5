// Texts and keyboards of broadcasts. Pure functions.
import { InlineKeyboard } from "grammy";
import type { BroadcastCounts, BroadcastPhase, PlanGroup } from "../../../domain/broadcast.js";
import { filterOf, filtersPresent } from "../../../domain/catalogue.js";
import type { Bouquet, ServiceKind } from "../../../domain/model.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { broadcastButtons } from "./callback-data.js";

const MAX_TEXT = 4_000;

export const unsubscribeKeyboard = (t: Translate) =>
  new InlineKeyboard().text(
    t("button-unsubscribe"),
    broadcastButtons.encode({ kind: "unsubscribe" }),
  );

/** The bouquets of a connection grouped by period, for a plan-information broadcast. */
export function planGroups(bouquets: Bouquet[]): PlanGroup[] {
  return filtersPresent(bouquets).map((filter) => ({
    filter,
    items: bouquets
      .filter((bouquet) => filterOf(bouquet) === filter)
      .map((bouquet) => ({ name: bouquet.displayName, price: bouquet.price })),
  }));
}

/** Plan information in one language, kept under Telegram's message limit. */
export function plansText(
  service: ServiceKind,
  groups: PlanGroup[],
  t: Translate,
  fmt: ValueFormatter,
): string {
  const lines = [`<b>${t("plans-title", { service: t(`service-${service}`) })}</b>`];
  for (const group of groups) {
    lines.push("", `<b>${t(`filter-${group.filter}`)}</b>`);
    for (const item of group.items) {
      lines.push(`• ${escapeHtml(truncate(item.name, 60))} – ${fmt.amount(item.price)}`);
    }
  }
  lines.push("", t("plans-footer"));
  let text = lines.join("\n");
  while (text.length > MAX_TEXT) {
    lines.splice(lines.length - 3, 1);
    text = lines.join("\n");
  }
  return text;
}

export function progressText(counts: BroadcastCounts, phase: BroadcastPhase, t: Translate): string {
  const key =
    phase === "done"
      ? "broadcast-done"
      : phase === "cancelled"
        ? "broadcast-cancelled"
        : "broadcast-progress";
  return t(key, { ...counts });
}
