// The payment sandboxes' pages: plain HTML, no JavaScript, so a test drives them with fetch and a
// person with any browser.

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

/** A whole page of the sandbox named `brand` ("Khalti sandbox"). */
export function htmlPage(brand: string, title: string, body: string): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><h1>${escapeHtml(brand)}</h1>${body}</body></html>`,
  ].join("\n");
}
