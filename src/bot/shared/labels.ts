// Words and labels that several features show the same way. Pure functions; the results are
// plain text (escape them for HTML).
import type { Connection } from "../../domain/model.js";
import { truncate } from "./html.js";

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
export function relativeDays(days: number, t: Translate): string {
  if (days === 0) return t("ends-today");
  return days > 0 ? t("expires-in", { days }) : t("expired-ago", { days: -days });
}
