// What the payment pages share (Khalti's return page, eSewa's pay page and redirects): the
// page's frame and parts (its stylesheet: page-style.ts). The payment system is asked at most
// once an interval per offer however often a page is opened: PaymentService.checkOffer.
import { parseBouquetName } from "../../../domain/bouquet-name.js";
import type { CheckOutcome } from "../../../domain/payment-service.js";
import type { Purchase } from "../../../domain/purchase.js";
import { LOCALES, type Locale } from "../../context.js";
import { escapeHtml } from "../../shared/html.js";
import type { Translator } from "../../shared/i18n.js";
import { billingLabel, type Translate } from "../../shared/labels.js";
import { maskedId } from "../../shared/masking.js";
import type { ValueFormatter } from "../../shared/values.js";
import { STYLESHEET_HREF } from "./page-style.js";

/** A page the HTTP server serves (adapters/http/server.ts PageRoute). */
export interface PaymentPage {
  path: string;
  /** `path` is a prefix: the rest of the address is the page's own. */
  prefix?: boolean;
  /** Where the page's form may be posted (its Content-Security-Policy). */
  formAction?: string;
  render(query: URLSearchParams, pathname: string): Promise<{ status: number; html: string }>;
}

/** The payment systems whose pages the bot serves. */
export type PageMethod = "khalti" | "esewa";

/** How a page's news looks (its colour): good, wait, for information, ended, or take care. */
export type Tone = "ok" | "wait" | "info" | "ended" | "warn";

/** The tone of what a check of an offer found. */
function toneOf(outcome: CheckOutcome): Tone {
  switch (outcome) {
    case "paid":
      return "ok";
    case "pending":
      return "wait";
    case "waiting":
    case "window-over":
      return "info";
    case "ended":
      return "ended";
    default:
      return "warn";
  }
}

/** A value inside a double-quoted attribute. */
export const attribute = (value: string) => escapeHtml(value).replaceAll('"', "&quot;");

/** The language a page is written in: the purchase's, English when the bot has no such locale. */
const pageLanguage = (language: string): Locale =>
  (LOCALES as readonly string[]).includes(language) ? (language as Locale) : "en";

/** What a page of one purchase is written with: its buyer's language, texts and formats. */
export interface PageWords {
  language: Locale;
  t: Translate;
  fmt: ValueFormatter;
}

export function wordsOf(
  purchase: Purchase,
  i18n: Translator,
  formatter: (locale: string) => ValueFormatter,
): PageWords {
  const language = pageLanguage(purchase.language);
  return {
    language,
    t: (key, variables) => i18n.t(language, key, variables),
    fmt: formatter(language),
  };
}

export interface PageFrame {
  /** The page's language (`<html lang>`). */
  language: string;
  title: string;
  /** The payment system the page is about: its name beside the title, its colour on Pay. */
  method?: { id: PageMethod; name: string };
  /** HTML. */
  body: string;
}

/**
 * The HTML around every payment page: the project's stylesheet (no inline style, no script:
 * the Content-Security-Policy allows neither), the title and the payment system's name.
 */
export function paymentPageHtml(frame: PageFrame): string {
  const { method } = frame;
  return [
    `<!doctype html><html lang="${attribute(frame.language)}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${escapeHtml(frame.title)}</title>`,
    `<link rel="stylesheet" href="${attribute(STYLESHEET_HREF)}"></head>`,
    `<body${method ? ` class="method-${method.id}"` : ""}><main class="card">`,
    `<header class="head"><h1>${escapeHtml(frame.title)}</h1>`,
    method ? `<span class="method">${escapeHtml(method.name)}</span>` : "",
    `</header>${frame.body}</main></body></html>`,
  ].join("");
}

/** A page's news (a locale's text, HTML), coloured by its tone. */
export const statusNote = (tone: Tone, text: string) =>
  `<p class="status tone-${tone}">${text}</p>`;

/**
 * The amount, large, then the connection (masked as the invoice masks it: a page's address may
 * reach someone else than the buyer), the package and its period in words.
 */
export function purchaseSummary(purchase: Purchase, words: PageWords, paying: boolean): string {
  const { t, fmt } = words;
  const bouquet = parseBouquetName(purchase.bouquet.name);
  const service = t(`service-${purchase.connection.service}`);
  // In the order of the chat's summary before Confirm.
  const rows: [string, string][] = [
    [t("page-connection"), `${service} ${maskedId(purchase.connection.id)}`],
    [t("page-package"), bouquet.displayName],
    [t("page-period"), billingLabel(bouquet, t)],
  ];
  return (
    `<p class="amount"><span class="amount-label">${t(paying ? "page-to-pay" : "page-price")}</span>` +
    `<span class="amount-value">${fmt.amount(purchase.bouquet.price)}</span></p>` +
    `<dl class="order">${rows
      .map(
        ([label, value]) => `<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`,
      )
      .join("")}</dl>`
  );
}

/** A link that looks like a button: Telegram's blue, or quiet beside a page's main button. */
export const linkButton = (href: string, label: string, quiet = false) =>
  `<a class="button ${quiet ? "button-quiet" : "button-telegram"}" href="${attribute(href)}">${label}</a>`;

/**
 * What a check of an offer found, on its payment system's page, in the buyer's language: the
 * news first, what was bought, then the way back to the chat, where the story goes on.
 */
export function outcomePageHtml(
  purchase: Purchase,
  words: PageWords,
  parts: {
    method: PageMethod;
    title: string;
    outcome: CheckOutcome;
    /** The locale's text for the outcome. */
    said: string;
    back: { href: string; label: string };
  },
): string {
  return paymentPageHtml({
    language: words.language,
    title: parts.title,
    method: { id: parts.method, name: words.t(`method-${parts.method}`) },
    body:
      statusNote(toneOf(parts.outcome), parts.said) +
      purchaseSummary(purchase, words, false) +
      linkButton(parts.back.href, parts.back.label),
  });
}

/**
 * A page that knows no purchase (an address not found, an answer that does not verify), so no
 * buyer's language: every locale's words, each marked with its language, English first. The
 * browser's language is no better guess: many Nepali buyers' phones are set to English.
 */
export function pageInEveryLanguage(
  i18n: Translator,
  parts: {
    method: PageMethod;
    tone: Tone;
    chatLink: string;
    words: (t: Translate) => { title: string; text: string; back: string };
  },
): string {
  const [first, ...others] = LOCALES.map((language) => {
    const t: Translate = (key, variables) => i18n.t(language, key, variables);
    return { language, t, ...parts.words(t) };
  });
  if (!first) throw new Error("no locale");
  const back = [first, ...others]
    .map(({ language, back }) => `<span lang="${language}">${back}</span>`)
    .join("");
  return paymentPageHtml({
    language: first.language,
    title: first.title,
    method: { id: parts.method, name: first.t(`method-${parts.method}`) },
    body:
      statusNote(parts.tone, first.text) +
      others
        .map(
          ({ language, title, text }) =>
            `<section class="other" lang="${language}"><h2>${escapeHtml(title)}</h2>${statusNote(parts.tone, text)}</section>`,
        )
        .join("") +
      linkButton(parts.chatLink, back),
  });
}

/**
 * The ledger could not be read (away): the payment is neither known nor unknown, so the page
 * says "we could not check", in every language, and never "not found" (the buyer may have
 * paid, and must not pay again). 503: a reload later may tell more.
 */
export function ledgerAwayPage(
  i18n: Translator,
  method: PageMethod,
  chatLink: string,
): { status: number; html: string } {
  const html = pageInEveryLanguage(i18n, {
    method,
    tone: "wait",
    chatLink,
    words: (t) => ({
      title: t(`${method}-page-title`),
      text: t(`${method}-page-unknown`),
      back: t(`${method}-page-back`),
    }),
  });
  return { status: 503, html };
}
