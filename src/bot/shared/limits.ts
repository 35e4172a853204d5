import type { Transformer } from "grammy";

/** Telegram's limits on a message's text and a caption, counted after entity parsing. */
export const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;

const LIMITED: Record<string, { field: "text" | "caption"; limit: number }> = {
  sendMessage: { field: "text", limit: TEXT_LIMIT },
  editMessageText: { field: "text", limit: TEXT_LIMIT },
  sendPhoto: { field: "caption", limit: CAPTION_LIMIT },
  editMessageCaption: { field: "caption", limit: CAPTION_LIMIT },
  copyMessage: { field: "caption", limit: CAPTION_LIMIT },
};

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/** What a reader sees of an HTML text: the tags gone, the entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(lt|gt|amp|quot|#\d+);/g, (_, name: string) =>
      name.startsWith("#") ? String.fromCodePoint(Number(name.slice(1))) : (ENTITIES[name] ?? ""),
    );
}

/**
 * The last line of defence of "no provider data can make a send fail": views keep texts short,
 * and a text that is still over Telegram's limit is sent as plain text, cut with an ellipsis,
 * rather than refused. Installed so that it sees the parse mode set by htmlParseMode.
 */
export const withinTelegramLimits: Transformer = (prev, method, payload, signal) => {
  const rule = LIMITED[method];
  const fields = payload as Record<string, unknown> | undefined;
  const value = fields?.[rule?.field ?? ""];
  if (!rule || !fields || typeof value !== "string") return prev(method, payload, signal);
  // What a reader sees is never longer than the HTML: most texts need no closer look.
  if (value.length <= rule.limit) return prev(method, payload, signal);
  const html = fields.parse_mode === "HTML";
  const visible = html ? visibleText(value) : value;
  if (visible.length <= rule.limit) return prev(method, payload, signal);
  const cut = `${Array.from(visible)
    .slice(0, rule.limit - 1)
    .join("")
    .slice(0, rule.limit - 1)}…`;
  const { parse_mode: _, ...rest } = fields;
  return prev(method, { ...rest, [rule.field]: cut } as typeof payload, signal);
};
