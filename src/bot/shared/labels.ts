// Words and labels that several features show the same way. Pure functions; the results are
// plain text (escape them for HTML), except subscriptionLine's, which is HTML.
import { parseBouquetName } from "../../domain/bouquet-name.js";
import type { Connection, Subscription } from "../../domain/model.js";
import { escapeHtml, truncate } from "./html.js";
import type { ValueFormatter } from "./values.js";

export type Translate = (key: string, variables?: Record<string, string | number>) => string;

/** "monthly", "add-on, monthly", "add-on", "one-off": the two markers are independent. */
export function billingLabel(
  bouquet: { period: string | null; addOn: boolean },
  t: Translate,
): string {
  const period = bouquet.period ? t(`period-${bouquet.period}`) : null;
  if (bouquet.addOn) return period ? t("period-addon-of", { period }) : t("period-addon");
  return period ?? t("period-other");
}

/**
 * Labels that tell buttons apart: where two would read the same (same name, billing and
 * price), each of them gets its package code.
 */
export function distinctLabels(labels: string[], codes: string[]): string[] {
  const seen = new Map<string, number>();
  for (const label of labels) seen.set(label, (seen.get(label) ?? 0) + 1);
  return labels.map((label, i) =>
    (seen.get(label) ?? 0) > 1 ? `${label} · #${truncate(codes[i] ?? "", 12)}` : label,
  );
}

/** A bouquet's name as people read it: without its period and add-on markers, shortened. */
export const bouquetTitle = (name: string, length: number) =>
  truncate(parseBouquetName(name).displayName, length);

/** "TV 8000000011": a connection by its service and id, the id shortened. */
export const connectionName = (
  connection: { service: string; id: string },
  t: Translate,
  idLength: number,
) => `${t(`service-${connection.service}`)} ${truncate(connection.id, idLength)}`;

export function statusLabel(status: string, t: Translate): string {
  if (status === "active") return t("status-active");
  if (status === "inactive") return t("status-inactive");
  return truncate(status, 20);
}

export function connectionLabel(connection: Connection, t: Translate): string {
  return t("connection-label", {
    service: t(`service-${connection.service}`),
    id: connection.id,
    status: statusLabel(connection.status, t),
  });
}

/** "expires in 3 days", "ends today", "expired 2 days ago". */
export function relativeDays(days: number, t: Translate): string {
  if (days === 0) return t("ends-today");
  return days > 0 ? t("expires-in", { days }) : t("expired-ago", { days: -days });
}

/** The subscription shown in a list: its end date and how far off, as far as they are known. */
export function subscriptionLine(
  subscription: Subscription,
  t: Translate,
  fmt: ValueFormatter,
  now: number,
  nameLength: number,
): string {
  const name = escapeHtml(bouquetTitle(subscription.name, nameLength));
  if (!subscription.end) return t("subscription-line-name", { name });
  const end = fmt.moment(subscription.end);
  const days = fmt.daysUntil(subscription.end, now);
  if (days === null) return t("subscription-line-date", { name, end });
  return t("subscription-line", { name, end, relative: relativeDays(days, t) });
}
