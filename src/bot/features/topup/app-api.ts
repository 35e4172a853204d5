// The Mini App's API (PUBLIC_URL/app/api/): the chat's top-up through the same services, as JSON.
// Every call is the user's whom Telegram's initData names (checked here, never taken from the
// body); who may top up is the chat's rule (TOPUP_USER_IDS); lookups count against the chat's
// LOOKUP_LIMIT, and once it is reached nothing looked up before is read again; calls against
// its FLOOD_LIMIT; what a
// customer shows is masked by the chat's one rule (shared/masking.ts); a purchase is opened by
// the payment service exactly as the chat's Confirm opens it (its offer also lands in the chat,
// and the receipt is told there by the teller).
import { normalizeCustomerCode } from "../../../domain/customer-code.js";
import type {
  Connection,
  CustomerInfo,
  ProviderTime,
  Subscription,
} from "../../../domain/model.js";
import { ask } from "../../../domain/provider-answers.js";
import {
  PAYMENT_METHODS,
  type PaymentMethod,
  type Purchase,
  type PurchasePayment,
} from "../../../domain/purchase.js";
import type { PurchaseIntent } from "../../../domain/topup.js";
import type { BotDeps } from "../../deps.js";
import { newFlowId } from "../../shared/flow.js";
import { localeFromTelegram } from "../../shared/i18n.js";
import { bouquetTitle, relativeDays, type Translate } from "../../shared/labels.js";
import { shownCustomerName, shownId, shownIds, shownName } from "../../shared/masking.js";
import type { ValueFormatter } from "../../shared/values.js";
import {
  checkoutOf,
  intentIdOf,
  journeyFromOffer,
  type Listing,
  listingOf,
  PAGE_SIZE,
  renewals,
} from "../topup/journey.js";
import { mayTopUp } from "./access.js";
import { failureKey, lookUpCustomer } from "./lookup.js";
import { type KeptNumber, keepNumber, keptNumber, numberGroup } from "./shared-number.js";
import { savedIds } from "./views.js";

/** Where a typed code's customer is kept for its user, between the lookup and the catalogue. */
const foundKey = (user: number) => `app-found-${user}`;

/** The calls that look a customer up or lead to a top-up: the chat's access rule applies. */
const TOPUP_CALLS = new Set(["GET connections", "POST lookup", "POST catalogue", "POST purchases"]);

/** The connections of the user's own number listed with their subscriptions, at most. */
const CONTACT_LISTED = PAGE_SIZE;

type Answer = { status: number; body: unknown };
const answer = (status: number, body: unknown): Answer => ({ status, body });
const refused = (status: number, error: string): Answer => answer(status, { error });

/** What a body may never carry: who the user is comes from initData alone. */
const IDENTITY_FIELDS = ["user", "userId", "user_id", "buyer", "from"];

/** A provider's day as text (the page escapes nothing: it only ever sets text). */
const dayOf = (at: ProviderTime | null, fmt: ValueFormatter): string | null =>
  at === null ? null : at.at === null ? at.text : fmt.day(at);

/** A customer looked up by a code, kept for the user who looked it up. */
interface Found {
  owner: number;
  info: CustomerInfo;
  proved: boolean;
}

/** Characters of a subscription's name, as the chat's overview shows it. */
const SUBSCRIPTION_NAME_LENGTH = 60;

/**
 * Subscriptions as the chat lists them: the package's name, its end date and how far off it is
 * ("expired 5 days ago"). Masked, none: the end dates would tell who the customer is.
 */
function shownSubscriptions(
  list: Subscription[],
  masked: boolean,
  fmt: ValueFormatter,
  t: Translate,
  now: number,
) {
  if (masked) return [];
  return list.map((s) => {
    const days = s.end ? fmt.daysUntil(s.end, now) : null;
    return {
      name: bouquetTitle(s.name, SUBSCRIPTION_NAME_LENGTH),
      end: dayOf(s.end ?? null, fmt),
      relative: days === null ? null : relativeDays(days, t),
    };
  });
}

/** The app's listing: the chat's, whose it is, and whether it was opened from their number. */
type AppListing = Listing & { owner: number; ofNumber?: true };

/** A call as the HTTP layer hands it over. */
interface AppRequest {
  method: string;
  /** After the API's prefix: "connections", "purchases/<id>". */
  path: string;
  /** `tma <initData>`. */
  authorization: string | undefined;
  /** A GET's `language`, as a POST's body carries it. */
  query?: URLSearchParams;
  body: unknown;
}

export interface AppApiParts {
  deps: BotDeps;
  /** The user Telegram's initData was signed for; null when missing, forged or too old. */
  userOf(initData: string | undefined): { id: number; languageCode: string | undefined } | null;
  /** Counts one call of this user; false beyond the chat's FLOOD_LIMIT. */
  takeCall(user: number): boolean;
  /** The card's invoice as a link (Telegram Payments offered), for openInvoice. */
  invoiceLink: ((purchase: Purchase, payment: PurchasePayment) => Promise<string>) | undefined;
  /** Khalti's or eSewa's link (openLink), or Fonepay's QR image, just shown for this purchase. */
  shownLink(purchaseId: string): { link: string } | { qr: string } | undefined;
  /** The same, as soon as the offer this request opens shows it (ShownLinks.awaitShown). */
  awaitShown?(purchaseId: string): {
    shown: Promise<{ link: string } | { qr: string }>;
    stop(): void;
  };
  /** Purchases the history shows (the chat's /history). */
  historyShown: number;
}

export function createAppApi(parts: AppApiParts) {
  const { deps } = parts;
  const translate =
    (language: string): Translate =>
    (key, variables) =>
      deps.i18n.t(language, key, variables);

  async function handle(request: AppRequest): Promise<Answer> {
    const user = parts.userOf(/^tma (.+)$/.exec(request.authorization ?? "")?.[1]);
    if (!user) return refused(401, "unauthorized");
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (IDENTITY_FIELDS.some((field) => field in body)) return refused(401, "unauthorized");
    if (!parts.takeCall(user.id)) return refused(429, "too-many");
    const asked = body.language ?? request.query?.get("language");
    const language =
      typeof asked === "string" && ["en", "ne"].includes(asked)
        ? asked
        : localeFromTelegram(user.languageCode);
    const [resource, id] = request.path.split("/");
    const call = `${request.method} ${resource}`;
    // What the chat says to a non-agent (PAYMENT_MODE=none), and nobody is looked up.
    if (TOPUP_CALLS.has(call) && !mayTopUp(deps.config, user.id)) {
      return call === "GET connections"
        ? answer(200, {
            methods: deps.payments?.methods ?? [],
            contact: "topup-agents-only",
            connections: [],
          })
        : refused(403, "topup-agents-only");
    }
    switch (call) {
      case "GET connections":
        return connections(user.id, language);
      case "POST lookup":
        return lookup(user.id, body.code);
      case "POST catalogue":
        return catalogue(user.id, body, language);
      case "POST purchases":
        return purchase(user.id, body, language);
      case "GET purchases":
        return id ? status(user.id, id) : history(user.id);
      case "GET reminders":
        return reminders(user.id);
      case "POST reminders":
        // /reminders' Cancel: only this user's own.
        return typeof body.cancel === "string"
          ? answer(200, { cancelled: await deps.reminders.cancel(user.id, body.cancel) })
          : refused(400, "reminder-invalid");
      default:
        return refused(404, "not-found");
    }
  }

  /**
   * The user's connections as the chat shows them: those of the phone number they shared as
   * their own (proved: in full, each with its subscriptions and end dates), then those saved
   * after a top-up (each as it was found), a connection of both listed once. `contact` says
   * how the number's lookup went: "found", "none" (no number kept) or why not.
   */
  async function connections(user: number, language: string): Promise<Answer> {
    const [saved, number] = await Promise.all([
      deps.savedConnections.list(user),
      keptNumber(deps, user),
    ]);
    const own = number === null ? undefined : await contactConnections(user, number, language);
    const listed = new Set(own?.connections.map((c) => `${c.service} ${c.id}`));
    const ids = savedIds(saved);
    const savedShown = saved.flatMap((entry, index) =>
      listed.has(`${entry.service} ${entry.connectionId}`)
        ? []
        : [
            {
              ref: `saved-${index}`,
              service: entry.service,
              id: ids[index] ?? "",
              name: shownName(entry.customerName, entry.proved),
              proved: entry.proved === true,
            },
          ],
    );
    return answer(200, {
      methods: deps.payments?.methods ?? [],
      contact: own?.contact ?? "none",
      connections: [...(own?.connections ?? []), ...savedShown],
    });
  }

  /**
   * The connections of the user's own number: its customer as kept (by the chat's lookup or an
   * earlier opening), or looked up as the chat's shared contact is, then kept as long.
   */
  async function contactConnections(user: number, number: KeptNumber, language: string) {
    let kept = number.customer;
    if (kept === null) {
      const found = await find(user, number.phone, true);
      if (!("info" in found)) {
        return { contact: String((found.body as { error: string }).error), connections: [] };
      }
      kept = await keepNumber(deps, user, number.phone, found.info);
    } else if (!(await deps.lookupLimit.check(user)).allowed) {
      // Limited: as the chat, and the provider is not asked for the kept customer's packages.
      return { contact: "lookup-limited", connections: [] };
    }
    const { customer, connections: list } = kept.info;
    const fmt = deps.formatter(language);
    const t = translate(language);
    const name = shownCustomerName(customer, true);
    const ids = shownIds(
      list.map((c) => c.id),
      true,
    );
    const shown = await Promise.all(
      list.map(async (connection, index) => ({
        ref: `contact-${index}-${kept.id}`,
        service: connection.service,
        id: ids[index] ?? "",
        name,
        proved: true,
        // Beyond the first few, opened to be seen: a provider call each.
        subscriptions:
          index < CONTACT_LISTED ? await subscriptionsOf(customer.cuid, connection, fmt, t) : null,
      })),
    );
    return { contact: "found", connections: shown };
  }

  /** A connection's subscriptions and end dates (null when the provider did not say). */
  async function subscriptionsOf(
    cuid: string,
    connection: Connection,
    fmt: ValueFormatter,
    t: Translate,
  ) {
    const listed = await ask(
      () => deps.provider.getPackages(cuid, connection),
      deps.logger,
      "package listing",
    );
    return listed.ok
      ? shownSubscriptions(listed.value.subscriptions, false, fmt, t, deps.now())
      : null;
  }

  /** A customer by a code looked up as the chat does: LOOKUP_LIMIT, a miss costs two. */
  async function find(user: number, code: string, proved: boolean): Promise<Answer | Found> {
    const check = normalizeCustomerCode(code);
    if (!check.ok) return refused(400, "code-invalid");
    const found = await lookUpCustomer(deps, user, check.code);
    switch (found.kind) {
      case "found":
        return { owner: user, info: found.info, proved };
      case "limited":
        return answer(429, { error: "lookup-limited", retryAt: found.retryAt });
      case "failed":
        return found.failure === "not-found"
          ? refused(404, "customer-not-found")
          : refused(503, failureKey(found.failure));
    }
  }

  async function lookup(user: number, code: unknown): Promise<Answer> {
    if (typeof code !== "string") return refused(400, "code-invalid");
    const found = await find(user, code, false);
    if (!("info" in found)) return found;
    await deps.listings.put(foundKey(user), found);
    const { customer, connections: list } = found.info;
    const ids = shownIds(
      list.map((c) => c.id),
      false,
    );
    return answer(200, {
      name: shownCustomerName(customer, false),
      connections: list.map((c, index) => ({
        ref: `found-${index}`,
        service: c.service,
        id: ids[index],
      })),
    });
  }

  /** The customer and connection a ref names, the user's own to choose. */
  async function chosen(
    user: number,
    ref: unknown,
  ): Promise<
    | Answer
    | {
        cuid: string;
        connection: Pick<Connection, "service" | "id">;
        proved: boolean;
        /** Looked up before (kept), not now: read again only while the user is not limited. */
        kept?: "found" | "number";
      }
  > {
    // A receipt's "Renew in the shop": that purchase's connection, its buyer's only.
    const renewing = typeof ref === "string" ? /^purchase-(.+)$/.exec(ref)?.[1] : undefined;
    if (renewing !== undefined) {
      const bought = await deps.purchases.get(renewing);
      if (bought?.buyer !== user) return refused(404, "expired");
      return {
        cuid: bought.customer.cuid,
        connection: bought.connection,
        proved: bought.proved === true,
      };
    }
    const [kind, at, keptAs] = typeof ref === "string" ? ref.split("-") : [];
    const index = Number(at);
    if (!Number.isInteger(index) || index < 0) return refused(400, "ref-invalid");
    if (kind === "contact") {
      // The connections of the number kept now, as listed: /forget, or another number, ends
      // an old page's.
      const kept = (await keptNumber(deps, user))?.customer;
      const connection = kept && kept.id === keptAs ? kept.info.connections[index] : undefined;
      if (!kept || !connection) return refused(404, "expired");
      return { cuid: kept.info.customer.cuid, connection, proved: true, kept: "number" };
    }
    if (kind === "found") {
      const found = (await deps.listings.get(foundKey(user))) as Found | null;
      const connection = found?.owner === user ? found.info.connections[index] : undefined;
      if (!found || !connection) return refused(404, "expired");
      return { cuid: found.info.customer.cuid, connection, proved: found.proved, kept: "found" };
    }
    if (kind !== "saved") return refused(400, "ref-invalid");
    const entry = (await deps.savedConnections.list(user))[index];
    if (!entry) return refused(404, "expired");
    // As the chat's saved button: looked up by the connection's own id.
    const found = await find(user, entry.connectionId, entry.proved === true);
    if (!("info" in found)) return found;
    const connection =
      found.info.connections.find((c) => c.id.toLowerCase() === entry.connectionId.toLowerCase()) ??
      found.info.connections[0];
    if (!connection) return refused(404, "no-connections");
    return { cuid: found.info.customer.cuid, connection, proved: found.proved };
  }

  async function catalogue(
    user: number,
    body: Record<string, unknown>,
    language: string,
  ): Promise<Answer> {
    const choice = await chosen(user, body.ref);
    if ("status" in choice) return choice;
    if (choice.kept) {
      const allowance = await deps.lookupLimit.check(user);
      if (!allowance.allowed) {
        return answer(429, { error: "lookup-limited", retryAt: allowance.retryAt });
      }
    }
    const listed = await ask(
      () => deps.provider.getPackages(choice.cuid, choice.connection),
      deps.logger,
      "package listing",
    );
    if (!listed.ok) return refused(503, "provider-unavailable");
    const journey = journeyFromOffer(newFlowId(), listed.value, deps.now(), !choice.proved);
    const listing: AppListing = {
      owner: user,
      ...listingOf(journey),
      ...(choice.kept === "number" && { ofNumber: true as const }),
    };
    // A menu of the number goes with it at /forget.
    const group = choice.kept === "number" ? numberGroup(user) : undefined;
    await deps.listings.put(journey.id, listing, group);
    const fmt = deps.formatter(language);
    const renewing = new Set(renewals(journey));
    const { customer, connection, masked } = journey;
    return answer(200, {
      journey: journey.id,
      customer: shownCustomerName(customer, !masked),
      connection: { service: connection.service, id: shownId(connection.id, !masked) },
      subscriptions: shownSubscriptions(
        journey.subscriptions,
        masked,
        fmt,
        translate(language),
        journey.updatedAt,
      ),
      bouquets: journey.bouquets.map((b, index) => ({
        index,
        code: b.code,
        name: b.displayName,
        price: fmt.amount(b.price),
        period: b.period,
        addOn: b.addOn,
        renews: renewing.has(index),
      })),
    });
  }

  async function purchase(
    user: number,
    body: Record<string, unknown>,
    language: string,
  ): Promise<Answer> {
    const payments = deps.payments;
    if (!payments) return refused(403, "no-payments");
    if (typeof body.purchase === "string") return payAgain(user, body.purchase);
    const method = (body.method ?? payments.methods[0]) as PaymentMethod;
    if (!PAYMENT_METHODS.includes(method) || !payments.methods.includes(method)) {
      return refused(400, "method-invalid");
    }
    const journeyId = typeof body.journey === "string" ? body.journey : "";
    const listing = journeyId ? ((await deps.listings.get(journeyId)) as AppListing | null) : null;
    // Another user's listing is as good as none: nothing of it is said.
    if (listing?.owner !== user) return refused(404, "expired");
    // Opened from the number: bought from only while it is kept (another replica's copy too).
    if (listing.ofNumber && (await deps.savedConnections.sharedPhone(user)) === null) {
      return refused(404, "expired");
    }
    const index = Number(body.bouquet);
    const bouquet = Number.isInteger(index) ? listing.bouquets[index] : undefined;
    if (!bouquet) return refused(400, "bouquet-invalid");
    const intentId = intentIdOf(journeyId, index);
    if ((await payments.stateOf(intentId, user)) === "closed") return refused(409, "closed");
    if (!(await deps.balanceAllows(bouquet.price))) return refused(503, "balance-stop");
    const intent: PurchaseIntent = {
      intentId,
      buyer: user,
      language,
      customer: listing.customer,
      connection: listing.connection,
      bouquet,
      checkout: checkoutOf(listing),
      ...(!listing.masked && { proved: true as const }),
    };
    const soon = parts.awaitShown?.(intentId);
    const opening = payments.open(intent, method);
    const first = await Promise.race([
      opening.then((opened) => ({ opened })),
      ...(soon ? [soon.shown.then((way) => ({ way }))] : []),
    ]);
    soon?.stop();
    if ("way" in first) {
      // The way to pay is out, its offer recorded: the app opens it while the chat's message
      // of it is sent; what befalls the rest is the purchase's, which the app follows.
      parts.shownLink(intentId); // taken: it is this answer's, not left for another
      opening.catch((error: unknown) => {
        deps.logger.warn(
          { err: error, purchaseId: intentId },
          "the rest of an offer opened from the app failed",
        );
      });
      return answer(200, { purchase: intentId, ...first.way });
    }
    const { opened } = first;
    switch (opened.kind) {
      case "offered":
        return answer(200, { purchase: opened.purchase.id, ...(await payWith(opened.purchase)) });
      case "duplicate":
      case "closed":
        return refused(409, opened.kind);
      case "unpayable":
        return refused(422, "unpayable");
      case "unavailable":
        return refused(503, "unavailable");
    }
  }

  /**
   * A purchase of this buyer that waits for its payment (started in the chat, or in the app and
   * left): paid in place as it is offered, nothing new recorded. The card's invoice link carries
   * the purchase's own payload and amount; Khalti's and eSewa's links are in the chat.
   */
  async function payAgain(user: number, id: string): Promise<Answer> {
    const waiting = await deps.purchases.get(id);
    if (waiting?.buyer !== user) return refused(404, "not-found");
    if (waiting.phase !== "awaiting-payment") return refused(409, "closed");
    const payment = waiting.payment;
    if (payment?.method === "telegram" && parts.invoiceLink) {
      return answer(200, { purchase: id, invoice: await parts.invoiceLink(waiting, payment) });
    }
    return answer(200, { purchase: id, inChat: payment?.method ?? "none" });
  }

  /** How the app pays in place: the card's invoice link, or the payment system's page. */
  async function payWith(purchase: Purchase): Promise<Record<string, string>> {
    const payment = purchase.payment;
    if (!payment) return {};
    if (payment.method === "telegram" && parts.invoiceLink) {
      return { invoice: await parts.invoiceLink(purchase, payment) };
    }
    // Anything not shown by this process is in the chat (the app says so).
    return parts.shownLink(purchase.id) ?? { inChat: payment.method };
  }

  async function status(user: number, id: string): Promise<Answer> {
    const found = await deps.purchases.get(id);
    if (found?.buyer !== user) return refused(404, "not-found");
    return answer(200, summary(found));
  }

  async function history(user: number): Promise<Answer> {
    const list = await deps.purchases.ofBuyer(user, parts.historyShown);
    return answer(200, { purchases: list.map(summary) });
  }

  /** The user's expiry reminders, as /reminders lists them (masked as they were set). */
  async function reminders(user: number): Promise<Answer> {
    const list = await deps.reminders.ofUser(user);
    return answer(200, {
      reminders: list.map((r) => {
        const fmt = deps.formatter(r.language);
        return {
          id: r.id,
          bouquet: r.bouquet.name,
          connection: { service: r.connection.service, id: shownId(r.connection.id, r.proved) },
          end: fmt.day({ at: r.end, text: "" }),
          at: fmt.day({ at: r.fireAt, text: "" }),
        };
      }),
    });
  }

  /** A purchase as its buyer may see it. */
  function summary(p: Purchase) {
    const fmt = deps.formatter(p.language);
    return {
      id: p.id,
      phase: p.phase,
      method: p.payment?.method ?? null,
      bouquet: p.bouquet.name,
      price: fmt.amount(p.bouquet.price),
      connection: { service: p.connection.service, id: shownId(p.connection.id, p.proved) },
      renewedUntil: dayOf(p.renewedUntil ?? null, fmt),
      at: p.createdAt,
    };
  }

  return { handle };
}
