// parse_mode "MarkdownV2" and legacy "Markdown", after tdlib's parsers. MarkdownV2 covers
// bold, italic, underline, strikethrough, spoiler, code, pre, links and custom emoji;
// ">" block quotes are not implemented (an unescaped ">" fails as a reserved character).

import type { MessageEntity, User } from "grammy/types";
import { cantParseEntities } from "./api-error.js";
import { type FormattedText, linkEntity } from "./entities.js";

type V2Kind = "Bold" | "Italic" | "Underline" | "Strikethrough" | "Spoiler" | "Code" | "Pre";
type V2Entity = V2Kind | "TextUrl" | "CustomEmoji";

const SIMPLE_KINDS: Record<Exclude<V2Kind, "Pre">, MessageEntity.CommonMessageEntity["type"]> = {
  Bold: "bold",
  Italic: "italic",
  Underline: "underline",
  Strikethrough: "strikethrough",
  Spoiler: "spoiler",
  Code: "code",
};

const RESERVED = "_*[]()~`>#+-=|{}.!";

interface OpenEntity {
  kind: V2Entity;
  language: string;
  offset: number;
  byteOffset: number;
}

export function parseMarkdownV2(
  source: string,
  findUser: (id: number) => User | undefined,
): FormattedText {
  const byteOffset = (index: number): number => Buffer.byteLength(source.slice(0, index));
  let text = "";
  const entities: MessageEntity[] = [];
  const open: OpenEntity[] = [];

  for (let i = 0; i < source.length; i++) {
    const c = source.charAt(i);
    const next = source.charAt(i + 1);
    if (c === "\\" && isEscapable(next)) {
      text += next;
      i++;
      continue;
    }
    const top = open.at(-1);
    const ends = top !== undefined && endsEntity(top.kind, source, i);
    if (!ends && (top?.kind === "Code" || top?.kind === "Pre")) {
      text += c;
      continue;
    }

    if (!ends) {
      if (!RESERVED.includes(c)) {
        text += c;
        continue;
      }
      const begin = i;
      let kind: V2Entity;
      let language = "";
      if (c === "_" && next === "_") {
        kind = "Underline";
        i++;
      } else if (c === "_") kind = "Italic";
      else if (c === "*") kind = "Bold";
      else if (c === "~") kind = "Strikethrough";
      else if (c === "|" && next === "|") {
        kind = "Spoiler";
        i++;
      } else if (c === "[") kind = "TextUrl";
      else if (c === "!" && next === "[") {
        kind = "CustomEmoji";
        i++;
      } else if (c === "`" && source.startsWith("``", i + 1)) {
        kind = "Pre";
        const opening = readPreOpening(source, i + 3);
        language = opening.language;
        i = opening.contentStart - 1;
      } else if (c === "`") kind = "Code";
      else {
        throw cantParseEntities(
          `Character '${c}' is reserved and must be escaped with the preceding '\\'`,
        );
      }
      open.push({ kind, language, offset: text.length, byteOffset: byteOffset(begin) });
      continue;
    }

    open.pop();
    const offset = top.offset;
    const length = text.length - offset;
    let url = "";
    if (top.kind === "Underline" || top.kind === "Spoiler") i++;
    else if (top.kind === "Pre") i += 2;
    else if (top.kind === "TextUrl" || top.kind === "CustomEmoji") {
      if (source.charAt(i + 1) === "(") {
        const read = readUrl(source, i + 2);
        if (read.end === undefined) {
          throw cantParseEntities(`Can't find end of a URL at byte offset ${byteOffset(i + 2)}`);
        }
        url = read.url;
        i = read.end;
      } else if (top.kind === "TextUrl") {
        url = text.slice(offset);
      }
    }
    if (top.kind === "CustomEmoji") {
      const id = /^tg:\/\/emoji\?id=([1-9]\d*)$/.exec(url)?.[1];
      if (id === undefined)
        throw cantParseEntities("Custom emoji entity must contain a tg://emoji URL");
      if (length > 0) entities.push({ type: "custom_emoji", offset, length, custom_emoji_id: id });
      continue;
    }
    if (length === 0) continue;
    if (top.kind === "TextUrl") {
      const entity = linkEntity(url, offset, length, findUser);
      if (entity) entities.push(entity);
    } else if (top.kind === "Pre") {
      entities.push({
        type: "pre",
        offset,
        length,
        ...(top.language && { language: top.language }),
      });
    } else {
      entities.push({ type: SIMPLE_KINDS[top.kind], offset, length });
    }
  }

  const unclosed = open.at(-1);
  if (unclosed) {
    throw cantParseEntities(
      `Can't find end of ${unclosed.kind} entity at byte offset ${unclosed.byteOffset}`,
    );
  }
  return { text, entities };
}

function isEscapable(c: string): boolean {
  const code = c.charCodeAt(0);
  return code > 0 && code < 127;
}

function endsEntity(kind: V2Entity, source: string, i: number): boolean {
  const c = source.charAt(i);
  const next = source.charAt(i + 1);
  switch (kind) {
    case "Bold":
      return c === "*";
    case "Italic":
      return c === "_" && next !== "_";
    case "Underline":
      return c === "_" && next === "_";
    case "Strikethrough":
      return c === "~";
    case "Spoiler":
      return c === "|" && next === "|";
    case "Code":
      return c === "`";
    case "Pre":
      return source.startsWith("```", i);
    case "TextUrl":
    case "CustomEmoji":
      return c === "]";
  }
}

/** After an opening ```: an optional language up to the line end, which is not content. */
function readPreOpening(source: string, start: number): { language: string; contentStart: number } {
  const language = /^[^\s`]+/.exec(source.slice(start))?.[0] ?? "";
  const afterLanguage = start + language.length;
  const newline = /^\r?\n/.exec(source.slice(afterLanguage))?.[0];
  if (language && newline !== undefined) {
    return { language, contentStart: afterLanguage + newline.length };
  }
  const bareNewline = /^\r?\n/.exec(source.slice(start))?.[0] ?? "";
  return { language: "", contentStart: start + bareNewline.length };
}

/** A "(url)" body from `start`; `end` is the index of ")" or undefined when missing. */
function readUrl(source: string, start: number): { url: string; end: number | undefined } {
  let url = "";
  for (let i = start; i < source.length; i++) {
    const c = source.charAt(i);
    if (c === ")") return { url, end: i };
    if (c === "\\" && isEscapable(source.charAt(i + 1))) {
      url += source.charAt(++i);
    } else {
      url += c;
    }
  }
  return { url, end: undefined };
}

const LEGACY_KINDS: Record<string, MessageEntity.CommonMessageEntity["type"]> = {
  "*": "bold",
  _: "italic",
  "`": "code",
};

/** Legacy "Markdown": *bold*, _italic_, `code`, ```pre```, [text](url); no nesting. */
export function parseLegacyMarkdown(
  source: string,
  findUser: (id: number) => User | undefined,
): FormattedText {
  let text = "";
  const entities: MessageEntity[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source.charAt(i);
    if (c === "\\" && "_*`[".includes(source.charAt(i + 1))) {
      text += source.charAt(++i);
      continue;
    }
    if (!"_*`[".includes(c)) {
      text += c;
      continue;
    }
    const begin = i;
    const isPre = source.startsWith("```", i);
    let language = "";
    i++;
    if (isPre) {
      const opening = readPreOpening(source, i + 2);
      language = opening.language;
      i = opening.contentStart;
    }
    const closing = isPre ? "```" : c === "[" ? "]" : c;
    const offset = text.length;
    while (i < source.length && !source.startsWith(closing, i)) text += source.charAt(i++);
    if (i >= source.length) {
      throw cantParseEntities(
        `Can't find end of the entity starting at byte offset ${Buffer.byteLength(source.slice(0, begin))}`,
      );
    }
    const length = text.length - offset;
    if (isPre) {
      i += 2;
      if (length > 0) entities.push({ type: "pre", offset, length, ...(language && { language }) });
    } else if (c === "[") {
      let url = text.slice(offset);
      if (source.charAt(i + 1) === "(") {
        const close = source.indexOf(")", i + 2);
        url = source.slice(i + 2, close === -1 ? source.length : close);
        i = close === -1 ? source.length : close;
      }
      const entity = length > 0 ? linkEntity(url, offset, length, findUser) : undefined;
      if (entity) entities.push(entity);
    } else {
      const type = LEGACY_KINDS[c];
      if (type && length > 0) entities.push({ type, offset, length });
    }
  }
  return { text, entities };
}
