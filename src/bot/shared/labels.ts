// Words and labels that several features show the same way. Pure functions; the results are
// plain text (escape them for HTML), except subscriptionLine's, which is HTML.
import { parseBouquetName } from "../../domain/bouquet-name.js";
import type { Connection, Subscription } from "../../domain/model.js";
import { escapeHtml, truncate } from "./html.js";
import type { ValueFormatter } from "./values.js";

export type Translate = (key: string, variables?: Record<string, string | number>) => string;

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
function relativeDays(days: number, t: Translate): string {
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
  const name = escapeHtml(truncate(parseBouquetName(subscription.name).displayName, nameLength));
  if (!subscription.end) return t("subscription-line-name", { name });
  const end = fmt.day(subscription.end);
  const days = fmt.daysUntil(subscription.end, now);
  if (days === null) return t("subscription-line-date", { name, end });
  return t("subscription-line", { name, end, relative: relativeDays(days, t) });
}
