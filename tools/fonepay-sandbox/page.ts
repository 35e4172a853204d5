// The QR's page: what a buyer's bank app would show once the QR is scanned, with buttons that
// act as the app does (scan, pay, fail, leave it pending). Plain HTML forms, no JavaScript, so a
// test drives it with fetch and a person with any browser; the QR itself drawn as SVG.

import QRCode from "qrcode";
import { escapeHtml, htmlPage, notice, rupees, type SandboxLook } from "../payment-fakes/html.js";

export const PAGE_PREFIX = "/qr/";

export const pagePath = (prn: string) => `${PAGE_PREFIX}${encodeURIComponent(prn)}`;

/** Fonepay's red; "Back to Telegram" to `chatUrl` when given. */
export const fonepayLook = (chatUrl?: string): SandboxLook => ({
  name: "Fonepay",
  colour: "#c8102e",
  chatUrl,
});

export interface PageView {
  prn: string;
  paisa: number;
  merchantCode: string;
  remarks: string;
  qrMessage: string;
  status: string;
}

export async function qrPage(view: PageView, look: SandboxLook): Promise<string> {
  const action = pagePath(view.prn);
  const svg = await QRCode.toString(view.qrMessage, { type: "svg", errorCorrectionLevel: "M" });
  const button = (path: string, label: string, kind = "") =>
    `<form method="post" action="${action}/${path}"><button type="submit"${kind}>${label}</button></form>`;
  const open = view.status === "CREATED" || view.status === "SCANNED" || view.status === "pending";
  return htmlPage(
    look,
    `Pay ${rupees(view.paisa)}`,
    [
      '<section class="merchant"><span class="label">Pay to</span>',
      `<b class="merchant-code">${escapeHtml(view.merchantCode)}</b>`,
      `<span class="order prn">prn ${escapeHtml(view.prn)} · ${escapeHtml(view.remarks)}</span>`,
      "</section>",
      `<div class="qr" style="max-width:16rem;margin:1rem auto">${svg}</div>`,
      `<p class="amount"><span class="amount-label">Amount:</span> ${rupees(view.paisa)}</p>`,
      `<p class="wallet status">Status: ${escapeHtml(view.status)}. As a bank app would: scan, then pay, fail, or leave it pending.</p>`,
      ...(open
        ? [
            button("scan", "Scan"),
            button("pay", "Pay", ' class="pay"'),
            button("fail", "Fail"),
            button("pending", "Leave pending"),
          ]
        : []),
    ].join("\n"),
  );
}

/** The sandbox's front page: every QR made, newest first, each leading to its page. */
export function indexPage(
  payments: readonly { prn: string; paisa: number; status: string }[],
  look: SandboxLook,
): string {
  const rows = [...payments]
    .reverse()
    .map(
      (payment) =>
        `<tr><th><a href="${pagePath(payment.prn)}">${escapeHtml(payment.prn)}</a></th><td>${rupees(payment.paisa)} · ${escapeHtml(payment.status)}</td></tr>`,
    );
  return htmlPage(
    look,
    "QRs",
    [
      "<h1>QRs made</h1>",
      '<p class="wallet">Open one to scan and pay it as a bank app would.</p>',
      rows.length > 0 ? `<table>${rows.join("")}</table>` : "<p>None yet.</p>",
    ].join("\n"),
  );
}

export const unknownPage = (look: SandboxLook) =>
  notice(look, "Unknown QR", "No QR with this prn was created.");
