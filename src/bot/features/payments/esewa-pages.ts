// eSewa's pages under PUBLIC_URL. The pay page (the chat's link) says what is being paid and
// posts the signed form to eSewa with a visible button: no script is needed. eSewa sends the
// buyer back to the success URL with a signed `data`, or to the failure URL (cancelled, failed,
// or pending). Neither is believed: a `data` whose signature does not verify over its own
// fields gets an error page and nothing is asked; a valid one, like the failure URL, only makes
// the bot run the status check now (at most once an interval per offer), and the page says
// what it found. An offer the ledger does not know is a 404, and eSewa is not asked. Every page
// says what is bought and links back to the chat; one that names no purchase says it in every
// language.
import type { PaymentLedger } from "../../../domain/payment.js";
import type { CheckOutcome, PaymentService } from "../../../domain/payment-service.js";
import type { Purchase } from "../../../domain/purchase.js";
import type { Translator } from "../../shared/i18n.js";
import type { ValueFormatter } from "../../shared/values.js";
import {
  attribute,
  ledgerAwayPage,
  linkButton,
  outcomePageHtml,
  type PaymentPage,
  pageInEveryLanguage,
  paymentPageHtml,
  purchaseSummary,
  statusNote,
  wordsOf,
} from "./payment-pages.js";

/** The bot's eSewa addresses, under PUBLIC_URL (the pay page's and failure's end in the uuid). */
export const ESEWA_PATHS = {
  pay: "/pay/esewa/",
  success: "/pay/esewa/success",
  failure: "/pay/esewa/failure/",
} as const;

/** What the pages need of eSewa's signatures (adapters/payments/esewa/esewa.ts EsewaCheckout). */
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
  refund: "esewa-page-refund",
  // AMBIGUOUS: held in eSewa's "halt state"; PENDING: started at eSewa and not finished.
  pending: "esewa-page-pending",
  unfinished: "esewa-page-unfinished",
  waiting: "esewa-page-waiting",
  ended: "esewa-page-ended",
  "window-over": "esewa-page-window-over",
  // eSewa has no failed state of its own: its CANCELED and NOT_FOUND end an offer.
  failed: "esewa-page-ended",
  refunded: "esewa-page-refunded",
  "part-refunded": "esewa-page-part-refunded",
  unknown: "esewa-page-unknown",
  "not-found": "esewa-page-unknown",
  checking: "esewa-page-checking",
};

const UUID = /^[A-Za-z0-9-]{1,100}$/;

export function esewaPages(parts: {
  ledger: Pick<PaymentLedger, "byOffer" | "keepOfferUntil">;
  payments: Pick<PaymentService, "checkOffer">;
  checkout: EsewaCheckoutForms;
  i18n: Translator;
  formatter: (locale: string) => ValueFormatter;
  /** The bot's chat in Telegram (`<TELEGRAM_LINK_ROOT>/<bot username>`). */
  chatLink: () => string;
  /** How long eSewa may take a payment on a form after the pay page served it (ESEWA_OFFER_MINUTES). */
  offerMs: number;
  now?: () => number;
}): PaymentPage[] {
  const { ledger, checkout, i18n } = parts;
  const now = parts.now ?? Date.now;
  // "away": the ledger could not be read, told apart from an offer it does not hold.
  const offer = (uuid: string | null): Promise<Purchase | null | "away"> =>
    uuid && UUID.test(uuid)
      ? ledger.byOffer("esewa", uuid).catch(() => "away" as const)
      : Promise.resolve(null);
  const away = () => ledgerAwayPage(i18n, "esewa", parts.chatLink());

  /** What the status check of this offer found, in the buyer's language. */
  async function outcomePage(purchase: Purchase, uuid: string) {
    // Asked at most once an interval per offer, however often a page is loaded (the service).
    const outcome = await parts.payments.checkOffer(purchase, "esewa", uuid);
    const words = wordsOf(purchase, i18n, parts.formatter);
    const { t } = words;
    const html = outcomePageHtml(purchase, words, {
      method: "esewa",
      title: t("esewa-page-title"),
      outcome,
      said: t(SAID[outcome]),
      back: { href: parts.chatLink(), label: t("esewa-page-back") },
    });
    return { status: 200, html };
  }

  /** An address that names no offer the ledger knows: nothing to say but the way back. */
  const notFound = () => ({
    status: 404,
    html: pageInEveryLanguage(i18n, {
      method: "esewa",
      tone: "warn",
      chatLink: parts.chatLink(),
      words: (t) => ({
        title: t("page-not-found-title"),
        text: t("page-not-found"),
        back: t("esewa-page-back"),
      }),
    }),
  });

  const success: PaymentPage = {
    path: ESEWA_PATHS.success,
    async render(query) {
      const uuid = checkout.redirectUuid(query.get("data"));
      if (uuid === null) {
        // Forged, altered or not eSewa's: nothing is looked up, nothing changes. It names no
        // purchase, so no buyer's language: every language.
        const html = pageInEveryLanguage(i18n, {
          method: "esewa",
          tone: "warn",
          chatLink: parts.chatLink(),
          words: (t) => ({
            title: t("page-invalid-title"),
            text: t("esewa-page-invalid"),
            back: t("esewa-page-back"),
          }),
        });
        return { status: 400, html };
      }
      const purchase = await offer(uuid);
      if (purchase === "away") return away();
      return purchase ? outcomePage(purchase, uuid) : notFound();
    },
  };

  const failure: PaymentPage = {
    path: ESEWA_PATHS.failure,
    prefix: true,
    async render(_, pathname) {
      const uuid = pathname.slice(ESEWA_PATHS.failure.length);
      const purchase = await offer(uuid);
      if (purchase === "away") return away();
      return purchase ? outcomePage(purchase, uuid) : notFound();
    },
  };

  const pay: PaymentPage = {
    path: ESEWA_PATHS.pay,
    prefix: true,
    formAction: new URL(checkout.formUrl).origin,
    async render(_, pathname) {
      const uuid = pathname.slice(ESEWA_PATHS.pay.length);
      const purchase = await offer(uuid);
      if (purchase === "away") return away();
      const asked = purchase?.payment;
      if (!purchase || !asked) return notFound();
      // Paid, ended, past its window or withdrawn (the buyer chose another method): no form to
      // pay it (again), only what eSewa says became of it.
      const current = asked.method === "esewa" && asked.offer === uuid;
      if (purchase.phase !== "awaiting-payment" || now() > asked.expiresAt || !current) {
        return outcomePage(purchase, uuid);
      }
      const words = wordsOf(purchase, i18n, parts.formatter);
      const { t } = words;
      const page = (body: string) =>
        paymentPageHtml({
          language: words.language,
          title: t("esewa-page-title"),
          method: { id: "esewa", name: t("method-esewa") },
          body,
        });
      const back = (quiet: boolean) => linkButton(parts.chatLink(), t("esewa-page-back"), quiet);
      // The form may be posted, and paid, well after this: the offer is watched long enough.
      // Not written: no form (a payment on it might not be looked for long enough).
      const kept = await ledger
        .keepOfferUntil(
          { purchaseId: purchase.id, method: "esewa", handle: uuid },
          now() + parts.offerMs,
        )
        .then(
          () => true,
          () => false,
        );
      if (!kept) {
        const body = statusNote("warn", t("esewa-page-unavailable")) + back(false);
        return { status: 503, html: page(body) };
      }
      const fields = Object.entries(checkout.form(uuid, asked.minor))
        .map(
          ([name, value]) =>
            `<input type="hidden" name="${attribute(name)}" value="${attribute(value)}">`,
        )
        .join("");
      // What is paid, the one button that pays it, what happens next, and a way back.
      const body =
        purchaseSummary(purchase, words, true) +
        `<form method="post" action="${attribute(checkout.formUrl)}">${fields}` +
        `<button type="submit" class="button button-pay">${t("esewa-page-submit")}</button></form>` +
        `<p class="note">${t("page-esewa-next")}</p>` +
        `<p class="note">${t("page-esewa-safe")}</p>` +
        back(true);
      return { status: 200, html: page(body) };
    },
  };

  // The exact and longer addresses first: the pay page's prefix holds the others'.
  return [success, failure, pay];
}
