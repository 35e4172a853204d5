// The payment sandboxes' pages: plain HTML, no JavaScript, so a test drives them with fetch and a
// person with any browser. Each looks enough like the system it stands for to play it in a demo
// (its colour, its name, the merchant, the amount), and says on every page that it is a sandbox.

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** 123456 paisa → NPR 1234.56, exactly. */
export function rupees(paisa: number): string {
  return `NPR ${Math.floor(paisa / 100)}.${String(paisa % 100).padStart(2, "0")}`;
}

/** The payment system a sandbox's pages stand for. */
export interface SandboxLook {
  /** Its name, as its header shows it: "Khalti", "eSewa". */
  name: string;
  /** Its colour: the header and the Pay button. */
  colour: string;
  /** Where the pages' "Back to Telegram" leads (the playground's chat); without it, no link. */
  chatUrl?: string | undefined;
}

// A sandbox has no Content-Security-Policy to keep: its style is inline, one block per page.
const STYLE = `
*, *::before, *::after { box-sizing: border-box; }
body {
  margin: 0;
  background: #f3f3f6;
  color: #1f1f24;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", Arial, sans-serif;
}
.test-mode {
  margin: 0;
  padding: 0.45rem 1rem;
  background: #ffd43b;
  color: #3d3000;
  font-size: 0.85rem;
  text-align: center;
}
.bar {
  display: flex;
  align-items: center;
  justify-content: space-between;
  padding: 0.9rem 1.25rem;
  background: var(--brand);
  color: #fff;
}
.logo { font-size: 1.6rem; font-weight: 800; letter-spacing: -0.02em; }
.badge {
  padding: 0.1rem 0.6rem;
  border: 1px solid rgb(255 255 255 / 70%);
  border-radius: 999px;
  font-size: 0.75rem;
  font-weight: 700;
  letter-spacing: 0.06em;
  text-transform: uppercase;
}
.sheet {
  max-width: 26rem;
  margin: 1.25rem max(0.75rem, calc(50% - 13rem));
  padding: 1.25rem;
  background: #fff;
  border-radius: 1rem;
  box-shadow: 0 1px 3px rgb(0 0 0 / 8%), 0 8px 24px rgb(0 0 0 / 5%);
}
h1 { margin: 0 0 0.5rem; font-size: 1.2rem; }
.merchant { display: flex; flex-direction: column; padding-bottom: 1rem; border-bottom: 1px solid #ececf1; }
.merchant b { font-size: 1.1rem; }
.label, .order, th { color: #6b6b78; }
.label { font-size: 0.85rem; }
.order { overflow-wrap: anywhere; }
.amount { margin: 1rem 0; color: var(--brand); font-size: 2rem; font-weight: 800; text-align: center; }
.amount-label { color: #6b6b78; font-size: 1rem; font-weight: 600; }
table { width: 100%; margin-top: 1rem; border-collapse: collapse; }
th, td { padding: 0.35rem 0; border-bottom: 1px solid #f0f0f4; }
th { font-weight: 400; text-align: left; }
td { text-align: right; font-variant-numeric: tabular-nums; }
.wallet { margin: 0 0 1rem; padding: 0.7rem 0.9rem; background: #f6f6f9; border-radius: 0.6rem; color: #55555f; font-size: 0.9rem; }
form { margin: 0 0 0.75rem; }
button {
  width: 100%;
  min-height: 3.25rem;
  border: 1px solid #d8d8e0;
  border-radius: 0.75rem;
  background: #fff;
  color: #1f1f24;
  font: inherit;
  font-size: 1.05rem;
  font-weight: 700;
  cursor: pointer;
}
button.pay { border-color: var(--brand); background: var(--brand); color: #fff; }
button:focus-visible, a:focus-visible { outline: 3px solid #1d63d6; outline-offset: 2px; }
.back { margin: 0 0 2rem; text-align: center; }
.back a { display: inline-block; padding: 0.75rem 1rem; color: var(--brand); font-weight: 700; }
`;

/** A whole page of the sandbox standing for `look`. */
export function htmlPage(look: SandboxLook, title: string, body: string): string {
  const name = escapeHtml(look.name);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)} · ${name} sandbox</title>`,
    `<style>${STYLE}:root { --brand: ${look.colour}; }</style></head>`,
    "<body>",
    `<p class="test-mode"><b>Test mode</b> · the ${name} sandbox: no real money moves</p>`,
    `<header class="bar"><span class="logo">${name}</span><span class="badge">Sandbox</span></header>`,
    `<main class="sheet">${body}</main>`,
    look.chatUrl
      ? `<p class="back"><a href="${escapeHtml(look.chatUrl)}">← Back to Telegram</a></p>`
      : "",
    "</body></html>",
  ].join("\n");
}

/** A page that only says something: a title and a sentence. */
export const notice = (look: SandboxLook, title: string, text: string) =>
  htmlPage(look, title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
