// eSewa's pages under PUBLIC_URL. The pay page (the chat's link) says what is being paid and
// posts the signed form to eSewa with a visible button: no script is needed. eSewa sends the
// buyer back to the success URL with a signed `data`, or to the failure URL (cancelled, failed,
// or pending). Neither is believed: a `data` whose signature does not verify over its own
// fields gets an error page and nothing is asked; a valid one, like the failure URL, only makes
// the bot run the status check now (at most once an interval per offer), and the page says
// what it found. An offer the ledger does not know is a plain 404, and eSewa is not asked.
import type { PaymentLedger } from "../../../domain/payment.js";
import type { CheckOutcome, PaymentService } from "../../../domain/payment-service.js";
import type { Purchase } from "../../../domain/purchase.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import type { ValueFormatter } from "../../shared/values.js";
import { type PaymentPage, paymentPageHtml as page, throttledChecks } from "./payment-pages.js";

/** The bot's eSewa addresses, under PUBLIC_URL (the pay page's and failure's end in the uuid). */
export const ESEWA_PATHS = {
  pay: "/pay/esewa/",
  success: "/pay/esewa/success",
  failure: "/pay/esewa/failure/",
} as const;

/** What the pages need of eSewa's signatures (adapters/payments/esewa.ts EsewaCheckout). */
export interface EsewaCheckoutForms {
  /** Where the form is posted. */
  readonly formUrl: string;
  /** The signed form's fields, in order. */
  form(transactionUuid: string, minor: number): Readonly<Record<string, string>>;
  /** The transaction_uuid of a redirect's data that verifies, else null. */
  redirectUuid(data: string | null): string | null;
}

const SAID: Record<CheckOutcome, string> = {
  paid: "esewa-page-paid",
  pending: "esewa-page-pending",
  waiting: "esewa-page-waiting",
  ended: "esewa-page-ended",
  unknown: "esewa-page-unknown",
  "not-found": "esewa-page-unknown",
};

const UUID = /^[A-Za-z0-9-]{1,100}$/;
/** A redirect that does not verify names no purchase, so no buyer's language: the default. */
const DEFAULT_LANGUAGE = "en";

const NOT_FOUND = { status: 404, html: page("en", "Not found", "") };

/** A value inside a double-quoted attribute. */
const attribute = (value: string) => escapeHtml(value).replaceAll('"', "&quot;");

export function esewaPages(parts: {
  ledger: Pick<PaymentLedger, "byOffer">;
  payments: Pick<PaymentService, "checkOffer">;
  checkout: EsewaCheckoutForms;
  i18n: Translator;
  formatter: (locale: string) => ValueFormatter;
  botUsername: () => string;
  lookupIntervalMs: number;
  now?: () => number;
}): PaymentPage[] {
  const { ledger, checkout, i18n } = parts;
  const now = parts.now ?? Date.now;
  const checked = throttledChecks(parts.payments, "esewa", parts.lookupIntervalMs, now);
  const offer = (uuid: string | null): Promise<Purchase | null> =>
    uuid && UUID.test(uuid)
      ? ledger.byOffer("esewa", uuid).catch(() => null)
      : Promise.resolve(null);

  /** What the status check of this offer found, in the buyer's language. */
  async function outcomePage(purchase: Purchase, uuid: string) {
    const outcome = await checked(purchase, uuid);
    const t = (key: string) => i18n.t(purchase.language, key);
    const link = `https://t.me/${encodeURIComponent(parts.botUsername())}`;
    const body = `<p>${t(SAID[outcome])}</p><p><a href="${escapeHtml(link)}">${t("esewa-page-back")}</a></p>`;
    return { status: 200, html: page(purchase.language, t("esewa-page-title"), body) };
  }

  const success: PaymentPage = {
    path: ESEWA_PATHS.success,
    async render(query) {
      const uuid = checkout.redirectUuid(query.get("data"));
      if (uuid === null) {
        // Forged, altered or not eSewa's: nothing is looked up, nothing changes.
        const said = i18n.t(DEFAULT_LANGUAGE, "esewa-page-invalid");
        const html = page(DEFAULT_LANGUAGE, "Invalid payment response", `<p>${said}</p>`);
        return { status: 400, html };
      }
      const purchase = await offer(uuid);
      return purchase ? outcomePage(purchase, uuid) : NOT_FOUND;
    },
  };

  const failure: PaymentPage = {
    path: ESEWA_PATHS.failure,
    prefix: true,
    async render(_, pathname) {
      const uuid = pathname.slice(ESEWA_PATHS.failure.length);
      const purchase = await offer(uuid);
      return purchase ? outcomePage(purchase, uuid) : NOT_FOUND;
    },
  };

  const pay: PaymentPage = {
    path: ESEWA_PATHS.pay,
    prefix: true,
    formAction: new URL(checkout.formUrl).origin,
    async render(_, pathname) {
      const uuid = pathname.slice(ESEWA_PATHS.pay.length);
      const purchase = await offer(uuid);
      const asked = purchase?.payment;
      if (!purchase || !asked) return NOT_FOUND;
      // Paid, ended, past its window or withdrawn (the buyer chose another method): no form to
      // pay it (again), only what became of it.
      const current = asked.method === "esewa" && asked.offer === uuid;
      if (purchase.phase !== "awaiting-payment" || now() > asked.expiresAt || !current) {
        return outcomePage(purchase, uuid);
      }
      const t = (key: string, variables?: Record<string, string>) =>
        i18n.t(purchase.language, key, variables);
      const price = parts.formatter(purchase.language).amount(purchase.bouquet.price);
      const fields = Object.entries(checkout.form(uuid, asked.minor))
        .map(
          ([name, value]) =>
            `<input type="hidden" name="${attribute(name)}" value="${attribute(value)}">`,
        )
        .join("");
      const body =
        `<p>${t("esewa-page-paying", { bouquet: escapeHtml(purchase.bouquet.name), price: escapeHtml(price) })}</p>` +
        `<form method="post" action="${attribute(checkout.formUrl)}">${fields}` +
        `<button type="submit" style="font-size:1.2rem;padding:.6rem 1.2rem">${t("esewa-page-submit")}</button></form>`;
      return { status: 200, html: page(purchase.language, t("esewa-page-title"), body) };
    },
  };

  // The exact and longer addresses first: the pay page's prefix holds the others'.
  return [success, failure, pay];
}
