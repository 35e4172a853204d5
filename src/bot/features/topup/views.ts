// What the journey looks like: message texts (HTML) and inline keyboards. Pure functions.
// Provider data is escaped and shortened, and lists are cut, so that no answer of the
// provider can push a message over Telegram's limits.

import { InlineKeyboard } from "grammy";
import { type BouquetFilter, filtersPresent } from "../../../domain/catalogue.js";
import type { Bouquet, Connection, Customer } from "../../../domain/model.js";
import type { PaymentMethod } from "../../../domain/purchase.js";
import type { SavedConnection } from "../../../domain/saved-connections.js";
import type { MenuAction } from "../../session.js";
import { escapeHtml, truncate } from "../../shared/html.js";
import {
  billingLabel,
  bouquetTitle,
  connectionLabel,
  connectionName,
  distinctLabels,
  statusLabel,
  subscriptionLine,
  type Translate,
} from "../../shared/labels.js";
import { maskedIds, shownCustomerName, shownIds, shownName } from "../../shared/masking.js";
import { withShopButton } from "../../shared/shop.js";
import type { ValueFormatter } from "../../shared/values.js";
import { menuButton, topupButtons } from "./callback-data.js";
import { type Journey, paged, pageOf, renewals } from "./journey.js";

export interface View {
  text: string;
  keyboard: InlineKeyboard;
}

/** Characters of a bouquet name on a button, of a name in a text, of an id. */
const LABEL_LENGTH = 40;
const NAME_LENGTH = 60;
const ID_LENGTH = 64;
/** Subscriptions listed on the overview; the rest are counted. */
const SUBSCRIPTIONS_SHOWN = 10;

/** The name as shown (shared/masking.ts): masked (`masked`, see Listing) or "Ram T.". */
const customerName = (customer: Customer, masked: boolean) =>
  escapeHtml(
    shownCustomerName(
      { ...customer, firstName: truncate(customer.firstName.trim(), NAME_LENGTH) },
      !masked,
    ),
  );

/** The connections as listed together: masked ids told apart where they would read the same. */
function connectionLabels(connections: readonly Connection[], t: Translate, masked: boolean) {
  const ids = connections.map((connection) => connection.id);
  const shown = masked ? maskedIds(ids) : ids.map((id) => truncate(id, ID_LENGTH));
  return connections.map((connection, i) =>
    connectionLabel({ ...connection, id: shown[i] ?? "" }, t),
  );
}

/** Masked, the card names no customer id: only the masked name and the status. */
export function customerCard(customer: Customer, t: Translate, masked: boolean): string {
  const status = escapeHtml(statusLabel(customer.status, t));
  if (masked) return t("customer-card-masked", { name: customerName(customer, masked), status });
  return t("customer-card", {
    name: customerName(customer, masked),
    cuid: escapeHtml(truncate(customer.cuid, ID_LENGTH)),
    status,
  });
}

/** One connection; `listed`: the list it was chosen from, whose label for it is kept. */
export function connectionLine(
  connection: Connection,
  t: Translate,
  masked: boolean,
  listed: readonly Connection[] = [],
): string {
  const list = listed.includes(connection) ? listed : [connection];
  return escapeHtml(connectionLabels(list, t, masked)[list.indexOf(connection)] ?? "");
}

/** The connections to choose from, a page of them at a time (an id can be typed too). */
export function connectionChoice(
  journeyId: string,
  connections: Connection[],
  requestedPage: number,
  t: Translate,
  masked: boolean,
): View & { page: number } {
  const { items, page, pages } = paged(
    connections.map((_, index) => index),
    requestedPage,
  );
  const keyboard = new InlineKeyboard();
  const labels = connectionLabels(connections, t, masked);
  for (const index of items) {
    const data = topupButtons.encode({ kind: "connection", journeyId, index });
    keyboard.text(labels[index] ?? "", data).row();
  }
  const go = (target: number) =>
    topupButtons.encode({ kind: "connections", journeyId, page: target });
  pageControls(keyboard, page, pages, go, t);
  const lines = [
    pages > 1 ? t("choose-connection-paged", { page: page + 1, pages }) : t("choose-connection"),
  ];
  if (connections.some((c) => c.status !== "active")) lines.push(t("inactive-can-renew"));
  return { text: lines.join("\n"), keyboard, page };
}

/**
 * ‹ Prev · n/N · Next › under a list of more than one page. A button that leads nowhere (Prev
 * on the first page, the indicator, Next on the last) asks `go` for the page shown.
 */
function pageControls(
  keyboard: InlineKeyboard,
  page: number,
  pages: number,
  go: (page: number) => string,
  t: Translate,
): void {
  if (pages <= 1) return;
  keyboard
    .text(t("button-prev"), go(Math.max(0, page - 1)))
    .text(t("page-indicator", { page: page + 1, pages }), go(page))
    .text(t("button-next"), go(Math.min(pages - 1, page + 1)))
    .row();
}

function header(journey: Journey, t: Translate): string {
  const lines = [
    customerCard(journey.customer, t, journey.masked),
    connectionLine(journey.connection, t, journey.masked),
  ];
  if (journey.connection.status !== "active") lines.push(t("inactive-can-renew"));
  return lines.join("\n");
}

const priced = (bouquet: Bouquet | undefined, fmt: ValueFormatter, t: Translate) =>
  bouquet
    ? {
        name: truncate(bouquet.displayName, LABEL_LENGTH),
        billing: billingLabel(bouquet, t),
        price: fmt.amount(bouquet.price),
      }
    : { name: "?", billing: "", price: "" };

/**
 * Every subscriber of one catalogue is shown the same few hundred bouquet buttons, and one
 * takes two Fluent calls and a price format to draw: each is drawn once per language. Bounded,
 * as provider data makes the keys; `t` and `fmt` are in the same language (the update's).
 */
const LABELS_KEPT = 2_000;
const drawnLabels = new Map<string, string>();

function bouquetLabel(
  bouquet: Bouquet | undefined,
  renews: boolean,
  t: Translate,
  fmt: ValueFormatter,
): string {
  const key = bouquet
    ? [fmt.locale, renews, bouquet.displayName, bouquet.price, bouquet.period, bouquet.addOn]
        .map(String)
        .join("\n")
    : undefined;
  const drawn = key === undefined ? undefined : drawnLabels.get(key);
  if (drawn !== undefined) return drawn;
  const label = t(renews ? "renew-button" : "bouquet-button", { ...priced(bouquet, fmt, t) });
  if (key !== undefined) {
    if (drawnLabels.size >= LABELS_KEPT) drawnLabels.clear();
    drawnLabels.set(key, label);
  }
  return label;
}

/** One button per bouquet, each reading differently from the others. */
function bouquetButtons(
  journey: Journey,
  indexes: number[],
  renewing: ReadonlySet<number>,
  t: Translate,
  fmt: ValueFormatter,
): InlineKeyboard {
  const labels = indexes.map((index) =>
    bouquetLabel(journey.bouquets[index], renewing.has(index), t, fmt),
  );
  const codes = indexes.map((index) => journey.bouquets[index]?.code ?? "");
  const keyboard = new InlineKeyboard();
  distinctLabels(labels, codes).forEach((label, i) => {
    keyboard.text(label, menuButton(journey.id, { op: "pick", bouquet: indexes[i] ?? -1 })).row();
  });
  return keyboard;
}

export function overviewView(
  journey: Journey,
  t: Translate,
  fmt: ValueFormatter,
  now: number,
): View {
  const lines = [header(journey, t), "", `<b>${t("subscriptions-title")}</b>`];
  if (journey.subscriptions.length === 0) lines.push(t("subscriptions-none"));
  for (const subscription of journey.subscriptions.slice(0, SUBSCRIPTIONS_SHOWN)) {
    // Masked, no end date before payment: only the names of what runs.
    const shown = journey.masked ? { ...subscription, end: null } : subscription;
    lines.push(subscriptionLine(shown, t, fmt, now, NAME_LENGTH));
  }
  const hidden = journey.subscriptions.length - SUBSCRIPTIONS_SHOWN;
  if (hidden > 0) lines.push(t("list-more", { count: hidden }));
  lines.push("", t("choose-package"));

  const renewing = renewals(journey).slice(0, 3);
  const keyboard = bouquetButtons(journey, renewing, new Set(renewing), t, fmt);
  // A reminder's dates would tell the end date: none while masked (the receipt offers one).
  const remindable = journey.masked ? [] : journey.subscriptions.slice(0, 3);
  remindable.forEach((subscription, index) => {
    if (subscription.end?.at == null || subscription.end.at <= now) return;
    const name = bouquetTitle(subscription.name, LABEL_LENGTH);
    keyboard
      .text(
        t("remind-button", { name }),
        menuButton(journey.id, { op: "remind", subscription: index }),
      )
      .row();
  });
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
  const title = { filter: t(`filter-${filter}`), page: page + 1, pages };
  const text = [
    header(journey, t),
    "",
    t(pages > 1 ? "list-title-paged" : "list-title", title),
  ].join("\n");
  const keyboard = bouquetButtons(journey, items, renewing, t, fmt);
  const go = (target: number) =>
    target === page
      ? menuButton(journey.id, { op: "noop" })
      : menuButton(journey.id, { op: "list", filter, page: target });
  pageControls(keyboard, page, pages, go, t);
  keyboard.text(t("button-back"), menuButton(journey.id, { op: "overview" }));
  return { text, keyboard };
}

export function confirmView(
  journey: Journey,
  index: number,
  back: MenuAction,
  t: Translate,
  fmt: ValueFormatter,
  options: ConfirmOptions = {},
): View {
  const { note, methods = [] } = options;
  const bouquet = journey.bouquets[index];
  const text = [
    note ?? "",
    `<b>${t("confirm-title")}</b>`,
    t("confirm-summary", {
      customer: customerName(journey.customer, journey.masked),
      connection: connectionLine(journey.connection, t, journey.masked),
      bouquet: escapeHtml(truncate(bouquet?.displayName ?? "?", 2 * NAME_LENGTH)),
      period: bouquet ? billingLabel(bouquet, t) : "?",
      price: bouquet ? fmt.amount(bouquet.price) : "?",
    }),
  ]
    .filter(Boolean)
    .join("\n");
  const keyboard = new InlineKeyboard();
  if (methods.length > 1) {
    // One button per method, in the configured order; the summary says what it costs.
    payByKeyboard(keyboard, journey, methods, t);
  } else {
    keyboard
      .text(
        // Paid in the bot: the button says what it costs.
        methods.length === 1 && bouquet
          ? t("button-pay", { price: fmt.amount(bouquet.price) })
          : t("button-confirm"),
        menuButton(journey.id, { op: "confirm" }),
      )
      .row();
  }
  keyboard
    .text(t("button-back"), menuButton(journey.id, back))
    .text(t("button-cancel"), menuButton(journey.id, { op: "cancel" }));
  return { text, keyboard };
}

/** Paid in the bot: the methods offered (none: the operator pays; one: its button says the price). */
export interface ConfirmOptions {
  note?: string;
  methods?: readonly PaymentMethod[];
}

/** "Pay with Khalti", "Pay by card"… (or "… instead", `prefix`): one row each. */
function payByKeyboard(
  keyboard: InlineKeyboard,
  journey: Journey,
  methods: readonly PaymentMethod[],
  t: Translate,
  prefix = "pay-method",
): InlineKeyboard {
  for (const method of methods) {
    keyboard
      .text(t(`${prefix}-${method}`), menuButton(journey.id, { op: "confirm", method }))
      .row();
  }
  return keyboard;
}

/**
 * Under the summary once a method's offer is out: the other methods ("Pay by card instead"),
 * each withdrawing that offer for a new one of its own, until the purchase is paid or ends.
 */
export function otherMethodsKeyboard(
  journey: Journey,
  methods: readonly PaymentMethod[],
  t: Translate,
): InlineKeyboard {
  return payByKeyboard(new InlineKeyboard(), journey, methods, t, "pay-instead");
}

/**
 * Under /topup, for a user who topped up before: their connections, one tap each. As anywhere,
 * one proved theirs reads in full and one typed masked (the masked ids told apart).
 */
/** The saved connections' ids as their buyer may see them: the typed ones told apart. */
export function savedIds(saved: SavedConnection[]): string[] {
  const typed = shownIds(
    saved.filter((entry) => !entry.proved).map((entry) => entry.connectionId),
    false,
  );
  let nextTyped = 0;
  return saved.map((entry) => (entry.proved ? entry.connectionId : (typed[nextTyped++] ?? "")));
}

export function savedView(saved: SavedConnection[], t: Translate, shopUrl?: string): View {
  const keyboard = new InlineKeyboard();
  const ids = savedIds(saved);
  saved.forEach((entry, index) => {
    const id = ids[index] ?? "";
    const connection = connectionName({ service: entry.service, id }, t, ID_LENGTH);
    const name = truncate(shownName(entry.customerName, entry.proved), 24);
    const label = t("saved-button", { name, connection });
    keyboard.text(label, topupButtons.encode({ kind: "saved", index })).row();
  });
  keyboard
    .text(t("saved-someone-else"), topupButtons.encode({ kind: "someone-else" }))
    .text(t("saved-forget"), topupButtons.encode({ kind: "forget" }));
  return { text: t("saved-title"), keyboard: withShopButton(keyboard, t, shopUrl) };
}
