// Khalti's return_url: where the buyer's browser lands after paying or cancelling. Its query
// string is never believed: a pidx the ledger does not know gets a plain 404 and Khalti is not
// asked; a known one is looked up with Khalti, and the page (in the buyer's language) says what
// the lookup found, with a link back to the bot. The chat goes on by itself. However often the
// page is opened, a payment is looked up at most once an interval: the hits in between are told
// what the last lookup found.
import type { PaymentLedger } from "../../../domain/payment.js";
import type { CheckOutcome, PaymentService } from "../../../domain/payment-service.js";
import type { Purchase } from "../../../domain/purchase.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";

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

/** A page the HTTP server serves (adapters/http/server.ts PageRoute). */
interface ReturnPage {
  path: string;
  render(query: URLSearchParams): Promise<{ status: number; html: string }>;
}

export function khaltiReturnPage(
  ledger: Pick<PaymentLedger, "byOffer">,
  payments: PaymentService,
  i18n: Translator,
  botUsername: () => string,
  lookupIntervalMs: number,
  now: () => number = Date.now,
): ReturnPage {
  const recent = new Map<string, { at: number; outcome: Promise<CheckOutcome> }>();
  /** The lookup under way or done within the interval, else a new one. */
  function checked(purchase: Purchase, pidx: string): Promise<CheckOutcome> {
    const at = now();
    for (const [id, lookup] of recent) if (at - lookup.at >= lookupIntervalMs) recent.delete(id);
    const last = recent.get(pidx);
    if (last) return last.outcome;
    // The purchase's current link, or one withdrawn when the buyer chose another method.
    const outcome = payments.checkOffer(purchase, "khalti", pidx);
    recent.set(pidx, { at, outcome });
    return outcome;
  }
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

function page(language: string, title: string, body: string): string {
  return `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
