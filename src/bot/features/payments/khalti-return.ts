// Khalti's return_url: where the buyer's browser lands after paying or cancelling. Its query
// string is never believed: a pidx the ledger does not know gets a plain 404 and Khalti is not
// asked; a known one is looked up with Khalti, and the page (in the buyer's language) says what
// the lookup found, with a link back to the bot. The chat goes on by itself. However often the
// page is opened, a payment is looked up at most once an interval: the hits in between are told
// what the last lookup found.
import type { PaymentLedger } from "../../../domain/payment.js";
import type { CheckOutcome, PaymentService } from "../../../domain/payment-service.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { type PaymentPage, paymentPageHtml as page, throttledChecks } from "./payment-pages.js";

const SAID: Record<CheckOutcome, string> = {
  paid: "khalti-page-paid",
  pending: "khalti-page-pending",
  waiting: "khalti-page-waiting",
  ended: "khalti-page-ended",
  unknown: "khalti-page-unknown",
  "not-found": "khalti-page-unknown",
};

/** Where Khalti sends the buyer back, under PUBLIC_URL. */
export const KHALTI_RETURN_PATH = "/pay/khalti/return";

export function khaltiReturnPage(
  ledger: Pick<PaymentLedger, "byOffer">,
  payments: PaymentService,
  i18n: Translator,
  botUsername: () => string,
  lookupIntervalMs: number,
  now: () => number = Date.now,
): PaymentPage {
  // The purchase's current link, or one withdrawn when the buyer chose another method.
  const checked = throttledChecks(payments, "khalti", lookupIntervalMs, now);
  return {
    path: KHALTI_RETURN_PATH,
    async render(query) {
      const pidx = query.get("pidx") ?? "";
      const purchase = pidx ? await ledger.byOffer("khalti", pidx).catch(() => null) : null;
      if (!purchase) return { status: 404, html: page("en", "Not found", "") };
      const outcome = await checked(purchase, pidx);
      const t = (key: string) => i18n.t(purchase.language, key);
      const link = `https://t.me/${encodeURIComponent(botUsername())}`;
      const body = `<p>${t(SAID[outcome])}</p><p><a href="${escapeHtml(link)}">${t("khalti-page-back")}</a></p>`;
      return { status: 200, html: page(purchase.language, t("khalti-page-title"), body) };
    },
  };
}
