// What the journey looks like: message texts (HTML) and inline keyboards. Pure functions.
import { InlineKeyboard } from "grammy";
import { parseBouquetName } from "../../../domain/bouquet-name.js";
import { type BouquetFilter, filtersPresent } from "../../../domain/catalogue.js";
import type { Connection, Customer } from "../../../domain/model.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import { connectionLabel, relativeDays, statusLabel, type Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { type MenuAction, menuButton, topupButtons } from "./callback-data.js";
import { type Journey, pageOf, renewals } from "./journey.js";

export interface View {
  text: string;
  keyboard: InlineKeyboard;
}

const LABEL_LENGTH = 40;

/** First name and the initial of the last name: anyone who knows a number can look one up. */
function shortName(customer: Customer): string {
  const initial = Array.from(customer.lastName.trim())[0];
  return escapeHtml(initial ? `${customer.firstName} ${initial}.` : customer.firstName);
}

export function customerCard(customer: Customer, t: Translate): string {
  return t("customer-card", {
    name: shortName(customer),
    cuid: escapeHtml(customer.cuid),
    status: escapeHtml(statusLabel(customer.status, t)),
  });
}

export function connectionChoice(journeyId: string, connections: Connection[], t: Translate): View {
  const keyboard = new InlineKeyboard();
  connections.forEach((connection, index) => {
    const data = topupButtons.encode({ kind: "connection", journeyId, index });
    keyboard.text(connectionLabel(connection, t), data).row();
  });
  const anyInactive = connections.some((c) => c.status !== "active");
  const text = anyInactive
    ? `${t("choose-connection")}\n${t("inactive-can-renew")}`
    : t("choose-connection");
  return { text, keyboard };
}

function header(journey: Journey, t: Translate): string {
  const lines = [
    customerCard(journey.customer, t),
    escapeHtml(connectionLabel(journey.connection, t)),
  ];
  if (journey.connection.status !== "active") lines.push(t("inactive-can-renew"));
  return lines.join("\n");
}

const priced = (journey: Journey, index: number, fmt: ValueFormatter) => {
  const bouquet = journey.bouquets[index];
  return bouquet
    ? { name: truncate(bouquet.displayName, LABEL_LENGTH), price: fmt.amount(bouquet.price) }
    : { name: "?", price: "" };
};

export function overviewView(
  journey: Journey,
  t: Translate,
  fmt: ValueFormatter,
  now: number,
): View {
  const lines = [header(journey, t), "", `<b>${t("subscriptions-title")}</b>`];
  if (journey.subscriptions.length === 0) lines.push(t("subscriptions-none"));
  for (const subscription of journey.subscriptions) {
    lines.push(
      t("subscription-line", {
        name: escapeHtml(parseBouquetName(subscription.name).displayName),
        end: fmt.day(subscription.end),
        relative: relativeDays(fmt.daysUntil(subscription.end, now), t),
      }),
    );
  }
  lines.push("", t("choose-package"));

  const keyboard = new InlineKeyboard();
  for (const index of renewals(journey).slice(0, 3)) {
    keyboard
      .text(
        t("renew-button", priced(journey, index, fmt)),
        menuButton(journey.id, { op: "pick", bouquet: index }),
      )
      .row();
  }
  filtersPresent(journey.bouquets).forEach((filter, i) => {
    keyboard.text(t(`filter-${filter}`), menuButton(journey.id, { op: "list", filter, page: 0 }));
    if (i % 2 === 1) keyboard.row();
  });
  keyboard.row().text(t("button-cancel"), menuButton(journey.id, { op: "cancel" }));
  return { text: lines.join("\n"), keyboard };
}

export function listView(
  journey: Journey,
  filter: BouquetFilter,
  requestedPage: number,
  t: Translate,
  fmt: ValueFormatter,
): View {
  const { items, page, pages } = pageOf(journey, filter, requestedPage);
  const renewing = new Set(renewals(journey));
  const text = [
    header(journey, t),
    "",
    t("list-title", { filter: t(`filter-${filter}`), page: page + 1, pages }),
  ].join("\n");
  const keyboard = new InlineKeyboard();
  for (const index of items) {
    const key = renewing.has(index) ? "renew-button" : "bouquet-button";
    keyboard
      .text(
        t(key, priced(journey, index, fmt)),
        menuButton(journey.id, { op: "pick", bouquet: index }),
      )
      .row();
  }
  const go = (target: number) => menuButton(journey.id, { op: "list", filter, page: target });
  keyboard
    .text(t("button-prev"), page > 0 ? go(page - 1) : menuButton(journey.id, { op: "noop" }))
    .text(t("page-indicator", { page: page + 1, pages }), menuButton(journey.id, { op: "noop" }))
    .text(
      t("button-next"),
      page < pages - 1 ? go(page + 1) : menuButton(journey.id, { op: "noop" }),
    )
    .row()
    .text(t("button-back"), menuButton(journey.id, { op: "overview" }));
  return { text, keyboard };
}

export function confirmView(
  journey: Journey,
  index: number,
  back: MenuAction,
  t: Translate,
  fmt: ValueFormatter,
  note?: string,
): View {
  const bouquet = journey.bouquets[index];
  const text = [
    note ?? "",
    `<b>${t("confirm-title")}</b>`,
    t("confirm-summary", {
      customer: shortName(journey.customer),
      connection: escapeHtml(connectionLabel(journey.connection, t)),
      bouquet: escapeHtml(bouquet?.displayName ?? "?"),
      period: t(`period-${bouquet?.addOn ? "addon" : (bouquet?.period ?? "other")}`),
      price: fmt.amount(bouquet?.price ?? 0),
    }),
  ]
    .filter(Boolean)
    .join("\n");
  const keyboard = new InlineKeyboard()
    .text(t("button-confirm"), menuButton(journey.id, { op: "confirm" }))
    .row()
    .text(t("button-back"), menuButton(journey.id, back))
    .text(t("button-cancel"), menuButton(journey.id, { op: "cancel" }));
  return { text, keyboard };
}
