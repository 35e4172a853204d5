// Message text after parsing: plain text plus entities in UTF-16 code units, normalized the
// way Telegram returns them (trimmed, nothing inside code/pre, sorted).

import type { MessageEntity, User } from "grammy/types";

export interface FormattedText {
  text: string;
  entities: MessageEntity[];
}

/** A link entity for an <a href> or [text](url); undefined when Telegram would drop it. */
export function linkEntity(
  url: string,
  offset: number,
  length: number,
  findUser: (id: number) => User | undefined,
): MessageEntity | undefined {
  const userId = /^tg:\/\/user\?id=(\d+)$/i.exec(url.trim())?.[1];
  if (userId !== undefined) {
    const user = findUser(Number(userId));
    return user ? { type: "text_mention", offset, length, user } : undefined;
  }
  const normalized = normalizeLink(url);
  return normalized ? { type: "text_link", offset, length, url: normalized } : undefined;
}

/** Telegram's link normalization: default scheme http, http(s) and tg links only. */
export function normalizeLink(url: string): string | undefined {
  const trimmed = url.trim();
  if (/^tg:\/\/\S+$/i.test(trimmed)) return trimmed;
  const withScheme = /^[a-z][a-z\d+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  if (!URL.canParse(withScheme)) return undefined;
  const parsed = new URL(withScheme);
  const web = (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname;
  return web ? parsed.href : undefined;
}

/** Entities passed explicitly (`entities`, `caption_entities`), reduced to their own fields. */
export function explicitEntities(value: unknown): MessageEntity[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): MessageEntity[] => {
    if (typeof item !== "object" || item === null) return [];
    const { type, offset, length, url, user, language, custom_emoji_id } = item as Record<
      string,
      unknown
    >;
    if (typeof type !== "string" || !Number.isInteger(offset) || !Number.isInteger(length)) {
      return [];
    }
    const extra =
      type === "text_link"
        ? { url }
        : type === "text_mention"
          ? { user }
          : type === "pre" && language !== undefined
            ? { language }
            : type === "custom_emoji"
              ? { custom_emoji_id }
              : {};
    return [{ type, offset, length, ...extra } as MessageEntity];
  });
}

// tdlib's order for entities sharing offset and length.
const TYPE_PRIORITY: Partial<Record<MessageEntity["type"], number>> = {
  blockquote: 0,
  expandable_blockquote: 0,
  pre: 11,
  code: 20,
  text_link: 49,
  text_mention: 49,
  bold: 90,
  italic: 91,
  underline: 92,
  strikethrough: 93,
  spoiler: 94,
  custom_emoji: 99,
};

const TRIMMED = /[\t\n\v\f\r ]/;

/** Trims surrounding whitespace, clips entities to the text and orders them. */
export function normalizeFormattedText({ text, entities }: FormattedText): FormattedText {
  let start = 0;
  let end = text.length;
  while (start < end && TRIMMED.test(text.charAt(start))) start++;
  while (end > start && TRIMMED.test(text.charAt(end - 1))) end--;

  const clipped = entities.flatMap((entity) => {
    const from = Math.max(entity.offset, start);
    const to = Math.min(entity.offset + entity.length, end);
    return to > from ? [{ ...entity, offset: from - start, length: to - from }] : [];
  });
  // Code and pre cannot contain other entities; a pre absorbs a plain code inside it.
  const isCode = (e: MessageEntity) => e.type === "code" || e.type === "pre";
  const kept = clipped.filter(
    (entity) =>
      !clipped.some(
        (block) =>
          block !== entity &&
          isCode(block) &&
          (!isCode(entity) || (block.type === "pre" && entity.type === "code")) &&
          entity.offset >= block.offset &&
          entity.offset + entity.length <= block.offset + block.length,
      ),
  );
  kept.sort(
    (a, b) =>
      a.offset - b.offset ||
      b.length - a.length ||
      (TYPE_PRIORITY[a.type] ?? 50) - (TYPE_PRIORITY[b.type] ?? 50),
  );
  return { text: text.slice(start, end), entities: kept };
}
