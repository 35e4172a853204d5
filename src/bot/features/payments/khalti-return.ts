// Khalti's return_url: where the buyer's browser lands after paying or cancelling. Its query
// string is never believed: a pidx the ledger does not know gets a 404 (in every language: no
// purchase, no buyer's language) and Khalti is not asked; a known one is looked up with Khalti,
// whatever became of its purchase (a link paid after Cancel is found here too), and the page
// (in the buyer's language) says what the lookup found, what was bought, and links back to the
// bot: "nothing was charged" only when Khalti says so. The chat goes on by itself. However often
// the page is opened, a payment is looked up at most once an interval: the hits in between are
// told what the last lookup found. The payer's mobile number
// in the query (which a bank payment's refund needs) is handed to the payment service, which
// keeps it only when complete and with the transaction Khalti's own lookup gave
// (PaymentService.keepPayerMobile says why that is safe).
import type { PaymentLedger } from "../../../domain/payment.js";
import type { CheckOutcome, PaymentService } from "../../../domain/payment-service.js";
import type { Purchase } from "../../../domain/purchase.js";
import type { Translator } from "../../shared/i18n.js";
import type { ValueFormatter } from "../../shared/values.js";
import {
  ledgerAwayPage,
  outcomePageHtml,
  type PaymentPage,
  pageInEveryLanguage,
  wordsOf,
} from "./payment-pages.js";

const SAID: Record<CheckOutcome, string> = {
  paid: "khalti-page-paid",
  refund: "khalti-page-refund",
  pending: "khalti-page-pending",
  // Khalti has no "started and not finished" of its own: its Pending holds a payment.
  unfinished: "khalti-page-pending",
  waiting: "khalti-page-waiting",
  ended: "khalti-page-ended",
  "window-over": "khalti-page-window-over",
  failed: "khalti-page-failed",
  refunded: "khalti-page-refunded",
  "part-refunded": "khalti-page-part-refunded",
  unknown: "khalti-page-unknown",
  "not-found": "khalti-page-unknown",
  checking: "khalti-page-checking",
};

/** Where Khalti sends the buyer back, under PUBLIC_URL. */
export const KHALTI_RETURN_PATH = "/pay/khalti/return";

export function khaltiReturnPage(
  ledger: Pick<PaymentLedger, "byOffer">,
  payments: PaymentService,
  i18n: Translator,
  formatter: (locale: string) => ValueFormatter,
  /** The bot's chat in Telegram (`<TELEGRAM_LINK_ROOT>/<bot username>`). */
  chatLink: () => string,
): PaymentPage {
  return {
    path: KHALTI_RETURN_PATH,
    async render(query) {
      const pidx = query.get("pidx") ?? "";
      let purchase: Purchase | null = null;
      try {
        purchase = pidx ? await ledger.byOffer("khalti", pidx) : null;
      } catch {
        return ledgerAwayPage(i18n, "khalti", chatLink());
      }
      if (!purchase) {
        const html = pageInEveryLanguage(i18n, {
          method: "khalti",
          tone: "warn",
          chatLink: chatLink(),
          words: (t) => ({
            title: t("page-not-found-title"),
            text: t("page-not-found"),
            back: t("khalti-page-back"),
          }),
        });
        return { status: 404, html };
      }
      // The purchase's current link, or one withdrawn when the buyer chose another method;
      // asked at most once an interval per link, however often the page is loaded (the service).
      const outcome = await payments.checkOffer(purchase, "khalti", pidx);
      const mobile = query.get("mobile");
      const transaction = query.get("transaction_id") || query.get("tidx") || query.get("txnId");
      if (mobile && transaction) {
        const offer = { purchaseId: purchase.id, method: "khalti" as const, handle: pidx };
        await payments.keepPayerMobile(offer, transaction, mobile);
      }
      const words = wordsOf(purchase, i18n, formatter);
      const { t } = words;
      const html = outcomePageHtml(purchase, words, {
        method: "khalti",
        title: t("khalti-page-title"),
        outcome,
        said: t(SAID[outcome]),
        back: { href: chatLink(), label: t("khalti-page-back") },
      });
      return { status: 200, html };
    },
  };
}
