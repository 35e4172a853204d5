// What the payment pages share (Khalti's return page, eSewa's pay page and redirects): the
// page's frame, and the payment system asked at most once an interval per offer however
// often a page is opened (the hits in between are told what the last check found).
import type { CheckOutcome, PaymentService } from "../../../domain/payment-service.js";
import type { PaymentMethod, Purchase } from "../../../domain/purchase.js";
import { escapeHtml } from "../../shared/html.js";

/**
 * The check of one offer (by its handle: the purchase's current one, or one withdrawn when the
 * buyer chose another method) under way or done within the interval, else a new one.
 */
export function throttledChecks(
  payments: Pick<PaymentService, "checkOffer">,
  method: PaymentMethod,
  intervalMs: number,
  now: () => number,
): (purchase: Purchase, handle: string) => Promise<CheckOutcome> {
  const recent = new Map<string, { at: number; outcome: Promise<CheckOutcome> }>();
  return (purchase, handle) => {
    const at = now();
    for (const [id, check] of recent) if (at - check.at >= intervalMs) recent.delete(id);
    const last = recent.get(handle);
    if (last) return last.outcome;
    const outcome = payments.checkOffer(purchase, method, handle);
    recent.set(handle, { at, outcome });
    return outcome;
  };
}

/** A page the HTTP server serves (adapters/http/server.ts PageRoute). */
export interface PaymentPage {
  path: string;
  /** `path` is a prefix: the rest of the address is the page's own. */
  prefix?: boolean;
  /** Where the page's form may be posted (its Content-Security-Policy). */
  formAction?: string;
  render(query: URLSearchParams, pathname: string): Promise<{ status: number; html: string }>;
}

/** The HTML around every payment page. */
export function paymentPageHtml(language: string, title: string, body: string): string {
  return `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
