// The payment pages' one stylesheet, served by the bot's HTTP server as a file of its own so that
// the pages' Content-Security-Policy allows styles from the bot's own origin only (`style-src
// 'self'`, no inline style, no script). System fonts only (with the ones that draw Devanagari on
// Android, iOS, Windows and Linux), a narrow card for a phone, light and dark.
import { createHash } from "node:crypto";

const CSS = `
/* Latin letters and digits from the system's own font; Devanagari from the first of the
   system's Devanagari fonts that is there (Android, Windows, iOS and macOS, Linux). */
:root {
  color-scheme: light dark;
  --page: #f2f4f7;
  --card: #ffffff;
  --text: #16202b;
  --muted: #5a6573;
  --line: #e1e5eb;
  --accent: #1d63d6;
  --focus: #1d63d6;
  --telegram: #2481cc;
  --esewa: #2e7d1c;
  --khalti: #5c2d91;
  --ok: #1a7f37;
  --ok-bg: #e8f6ec;
  --wait: #9a6700;
  --wait-bg: #fff5d6;
  --info: #1d63d6;
  --info-bg: #eaf1fd;
  --ended: #59636e;
  --ended-bg: #eff1f4;
  --warn: #b54708;
  --warn-bg: #fff0e3;
  --shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 8px 24px rgb(16 24 40 / 6%);
}
@media (prefers-color-scheme: dark) {
  :root {
    --page: #0d1117;
    --card: #161c24;
    --text: #e6edf3;
    --muted: #9ba7b4;
    --line: #2a333e;
    --accent: #5ea4ff;
    --focus: #8cc0ff;
    --telegram: #2b8ad0;
    --esewa: #3a8f26;
    --khalti: #7340b0;
    --ok: #4ac26b;
    --ok-bg: rgb(74 194 107 / 12%);
    --wait: #e3b341;
    --wait-bg: rgb(227 179 65 / 12%);
    --info: #5ea4ff;
    --info-bg: rgb(94 164 255 / 12%);
    --ended: #9ba7b4;
    --ended-bg: rgb(155 167 180 / 12%);
    --warn: #f0883e;
    --warn-bg: rgb(240 136 62 / 13%);
    --shadow: none;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  min-height: 100vh;
  padding: 1rem 0.75rem 2rem;
  background: var(--page);
  color: var(--text);
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial,
    "Noto Sans Devanagari", "Nirmala UI", "Kohinoor Devanagari", "Lohit Devanagari", Mangal,
    sans-serif;
  font-size: 1rem;
  line-height: 1.55;
}
:lang(ne) { line-height: 1.7; }
@media (min-width: 40rem) { body { padding-top: 3rem; } }
button { font: inherit; }
.card {
  max-width: 26rem;
  margin: 0 auto;
  padding: 1.25rem;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 1rem;
  box-shadow: var(--shadow);
}
.head { display: flex; align-items: center; gap: 0.75rem; margin-bottom: 1.25rem; }
.head h1 { flex: 1; margin: 0; font-size: 1.2rem; line-height: 1.35; }
.method {
  flex: none;
  padding: 0.2rem 0.65rem;
  border-radius: 999px;
  background: var(--method, var(--accent));
  color: #fff;
  font-size: 0.85rem;
  font-weight: 700;
}
.method-esewa { --method: var(--esewa); }
.method-khalti { --method: var(--khalti); }
h2 { margin: 0 0 0.5rem; font-size: 1.05rem; }
.amount { margin: 0 0 1rem; text-align: center; }
.amount span { display: block; }
.amount-label { color: var(--muted); font-size: 0.9rem; }
.amount-value {
  font-size: 2.25rem;
  font-weight: 700;
  line-height: 1.25;
  font-variant-numeric: tabular-nums;
  overflow-wrap: anywhere;
}
.order { margin: 0 0 1.25rem; border-top: 1px solid var(--line); }
.order div {
  display: flex;
  justify-content: space-between;
  gap: 1rem;
  padding: 0.6rem 0;
  border-bottom: 1px solid var(--line);
}
.order dt { color: var(--muted); }
.order dd { margin: 0; font-weight: 600; text-align: end; overflow-wrap: anywhere; }
.status {
  margin: 0 0 1.25rem;
  padding: 0.85rem 1rem;
  border-left: 4px solid var(--tone);
  border-radius: 0.75rem;
  background: var(--tone-bg);
}
.tone-ok { --tone: var(--ok); --tone-bg: var(--ok-bg); }
.tone-wait { --tone: var(--wait); --tone-bg: var(--wait-bg); }
.tone-info { --tone: var(--info); --tone-bg: var(--info-bg); }
.tone-ended { --tone: var(--ended); --tone-bg: var(--ended-bg); }
.tone-warn { --tone: var(--warn); --tone-bg: var(--warn-bg); }
form { margin: 0; }
.button {
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  width: 100%;
  min-height: 3.25rem;
  margin: 0;
  padding: 0.7rem 1rem;
  border: 0;
  border-radius: 0.75rem;
  background: var(--accent);
  color: #fff;
  font-size: 1.1rem;
  font-weight: 600;
  line-height: 1.3;
  text-align: center;
  text-decoration: none;
  cursor: pointer;
}
.button-pay { background: var(--method, var(--accent)); }
.button-telegram { background: var(--telegram); }
.button-quiet {
  min-height: 3rem;
  background: transparent;
  color: var(--accent);
  border: 1px solid var(--line);
  font-size: 1rem;
}
.button span + span { font-size: 0.95em; font-weight: 500; }
.button:hover { filter: brightness(1.08); }
.button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.note { margin: 1rem 0 0; color: var(--muted); font-size: 0.95rem; }
.note + .button, .note + a.button { margin-top: 1.25rem; }
.other { margin-top: 1.25rem; padding-top: 1.25rem; border-top: 1px solid var(--line); }
`;

/** Where the stylesheet is served, and its text. */
export const PAGE_STYLESHEET = {
  path: "/pay/style.css",
  css: CSS.trimStart(),
} as const;

/**
 * The address the pages link: its version in the query, so that a browser keeping the
 * stylesheet for a day takes a changed one at once.
 */
export const STYLESHEET_HREF = `${PAGE_STYLESHEET.path}?v=${createHash("sha256").update(CSS).digest("hex").slice(0, 12)}`;
