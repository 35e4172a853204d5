// parse_mode "HTML", ported from tdlib's parse_html so that what Telegram accepts, rejects
// and reports ("Unsupported start tag \"ltd\" at byte offset 8") matches. Like Telegram, a
// stray "&" or ">" is kept literally; a stray "<" is a tag and fails.

import type { MessageEntity, User } from "grammy/types";
import { cantParseEntities } from "./api-error.js";
import { type FormattedText, linkEntity } from "./entities.js";

const SUPPORTED_TAGS = new Set([
  "a",
  "b",
  "strong",
  "i",
  "em",
  "s",
  "strike",
  "del",
  "u",
  "ins",
  "tg-spoiler",
  "tg-emoji",
  "span",
  "pre",
  "code",
  "blockquote",
]);

const SIMPLE_TAGS: Record<string, MessageEntity.CommonMessageEntity["type"]> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  span: "spoiler",
};

interface OpenTag {
  name: string;
  argument: string;
  /** UTF-16 offset in the produced text. */
  offset: number;
}

/** A code entity keeps its language until it is known whether a <pre> wraps it. */
type PendingEntity = MessageEntity & { codeLanguage?: string };

export function parseHtml(
  source: string,
  findUser: (id: number) => User | undefined,
): FormattedText {
  // tdlib reads a NUL terminator past the end; so does `at`.
  const at = (index: number): string => source[index] ?? "\0";
  const byteOffset = (index: number): number => Buffer.byteLength(source.slice(0, index));
  let text = "";
  const entities: PendingEntity[] = [];
  const open: OpenTag[] = [];

  for (let i = 0; i < source.length; i++) {
    const c = at(i);
    if (c === "&") {
      const decoded = decodeHtmlEntity(source, i);
      if (decoded) {
        text += decoded.character;
        i = decoded.end - 1;
        continue;
      }
    }
    if (c !== "<") {
      text += c;
      continue;
    }

    const begin = i++;
    if (at(i) !== "/") {
      while (!isSpace(at(i)) && at(i) !== ">") i++;
      if (at(i) === "\0")
        throw cantParseEntities(`Unclosed start tag at byte offset ${byteOffset(begin)}`);
      const name = source.slice(begin + 1, i).toLowerCase();
      if (!SUPPORTED_TAGS.has(name)) {
        throw cantParseEntities(
          `Unsupported start tag "${name}" at byte offset ${byteOffset(begin)}`,
        );
      }
      const parsed = readAttributes(source, i, name, byteOffset(begin));
      i = parsed.end;
      if (name === "span" && parsed.argument !== "spoiler") {
        throw cantParseEntities(
          `Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(begin)}`,
        );
      }
      open.push({ name, argument: parsed.argument, offset: text.length });
      continue;
    }

    const tag = open.pop();
    if (!tag) throw cantParseEntities(`Unexpected end tag at byte offset ${byteOffset(begin)}`);
    while (!isSpace(at(i)) && at(i) !== ">") i++;
    const endName = source.slice(begin + 2, i).toLowerCase();
    while (at(i) !== "\0" && isSpace(at(i))) i++;
    if (at(i) !== ">")
      throw cantParseEntities(`Unclosed end tag at byte offset ${byteOffset(begin)}`);
    if (endName !== "" && endName !== tag.name) {
      throw cantParseEntities(
        `Unmatched end tag at byte offset ${byteOffset(begin)}, expected "</${tag.name}>", found "</${endName}>"`,
      );
    }
    if (text.length > tag.offset) closeEntity(tag, text, entities, findUser);
  }

  const unclosed = open.at(-1);
  if (unclosed) {
    throw cantParseEntities(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  }
  return {
    text,
    entities: entities.map(({ codeLanguage: _, ...entity }) => entity as MessageEntity),
  };
}

function closeEntity(
  tag: OpenTag,
  text: string,
  entities: PendingEntity[],
  findUser: (id: number) => User | undefined,
): void {
  const offset = tag.offset;
  const length = text.length - offset;
  const simple = SIMPLE_TAGS[tag.name];
  const last = entities.at(-1);
  const wrapsLast = last !== undefined && last.offset === offset && last.length === length;
  if (simple) {
    entities.push({ type: simple, offset, length });
  } else if (tag.name === "a") {
    const entity = linkEntity(tag.argument || text.slice(offset), offset, length, findUser);
    if (entity) entities.push(entity);
  } else if (tag.name === "tg-emoji") {
    if (!/^[1-9]\d*$/.test(tag.argument)) {
      throw cantParseEntities("Invalid custom emoji identifier specified");
    }
    entities.push({ type: "custom_emoji", offset, length, custom_emoji_id: tag.argument });
  } else if (tag.name === "blockquote") {
    entities.push({ type: tag.argument ? "expandable_blockquote" : "blockquote", offset, length });
  } else if (tag.name === "pre") {
    // <pre><code class="language-x">: the inner code closed first and carries the language.
    if (wrapsLast && last.type === "code" && last.codeLanguage) {
      entities[entities.length - 1] = { type: "pre", offset, length, language: last.codeLanguage };
    } else {
      entities.push({ type: "pre", offset, length });
    }
  } else if (tag.name === "code") {
    if (wrapsLast && last.type === "pre" && tag.argument) {
      entities[entities.length - 1] = { type: "pre", offset, length, language: tag.argument };
    } else {
      entities.push({ type: "code", offset, length, codeLanguage: tag.argument });
    }
  }
}

/** Reads a start tag's attributes from `i` (just after its name) up to its ">". */
function readAttributes(
  source: string,
  start: number,
  tagName: string,
  tagByteOffset: number,
): { argument: string; end: number } {
  const at = (index: number): string => source[index] ?? "\0";
  let i = start;
  let argument = "";
  while (at(i) !== ">") {
    while (at(i) !== "\0" && isSpace(at(i))) i++;
    if (at(i) === ">") break;
    const nameBegin = i;
    while (!isSpace(at(i)) && at(i) !== "=" && at(i) !== ">") i++;
    const attribute = source.slice(nameBegin, i);
    if (attribute === "") {
      throw cantParseEntities(
        `Empty attribute name in the tag "${tagName}" at byte offset ${tagByteOffset}`,
      );
    }
    while (at(i) !== "\0" && isSpace(at(i))) i++;
    if (at(i) !== "=") {
      if (tagName === "blockquote" && attribute === "expandable") {
        argument = "1";
        continue;
      }
      throw cantParseEntities(
        `Expected equal sign in declaration of an attribute of the tag "${tagName}" at byte offset ${tagByteOffset}`,
      );
    }
    i++;
    while (at(i) !== "\0" && isSpace(at(i))) i++;
    if (at(i) === "\0") {
      throw cantParseEntities(`Unclosed start tag "${tagName}" at byte offset ${tagByteOffset}`);
    }
    let value = "";
    const quote = at(i);
    if (quote !== '"' && quote !== "'") {
      // An unquoted name token: letters, digits, periods and hyphens, case-insensitive.
      const tokenBegin = i;
      while (/[A-Za-z0-9.-]/.test(at(i))) i++;
      value = source.slice(tokenBegin, i).toLowerCase();
      if (!isSpace(at(i)) && at(i) !== ">") {
        throw cantParseEntities(
          `Unexpected end of name token at byte offset ${Buffer.byteLength(source.slice(0, tokenBegin))}`,
        );
      }
    } else {
      i++;
      while (at(i) !== quote && at(i) !== "\0") {
        const decoded = at(i) === "&" ? decodeHtmlEntity(source, i) : undefined;
        if (decoded) {
          value += decoded.character;
          i = decoded.end;
        } else {
          value += at(i++);
        }
      }
      if (at(i) === quote) i++;
    }
    if (at(i) === "\0")
      throw cantParseEntities(`Unclosed start tag at byte offset ${tagByteOffset}`);

    if (tagName === "a" && attribute === "href") argument = value;
    else if (tagName === "code" && attribute === "class" && value.startsWith("language-")) {
      argument = value.slice("language-".length);
    } else if (tagName === "span" && attribute === "class" && value.startsWith("tg-")) {
      argument = value.slice("tg-".length);
    } else if (tagName === "tg-emoji" && attribute === "emoji-id") argument = value;
  }
  return { argument, end: i };
}

function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\r" || c === "\n" || c === "\0" || c === "\v";
}

const NAMED_ENTITIES = new Map([
  ["lt", "<"],
  ["gt", ">"],
  ["amp", "&"],
  ["quot", '"'],
]);

/** Decodes &lt; &gt; &amp; &quot; &#NN; &#xNN; at `position` (";" optional, as in tdlib). */
function decodeHtmlEntity(
  source: string,
  position: number,
): { character: string; end: number } | undefined {
  let end = position + 1;
  let character: string | undefined;
  if (source[end] === "#") {
    const hex = source[end + 1] === "x";
    end += hex ? 2 : 1;
    const digits = (hex ? /^[0-9a-fA-F]*/ : /^[0-9]*/).exec(source.slice(end))?.[0] ?? "";
    end += digits.length;
    const code = digits === "" ? 0 : Number.parseInt(digits, hex ? 16 : 10);
    if (code === 0 || code >= 0x10ffff || end - position >= 10) return undefined;
    character = String.fromCodePoint(code);
  } else {
    const name = /^[A-Za-z]*/.exec(source.slice(end))?.[0] ?? "";
    end += name.length;
    character = NAMED_ENTITIES.get(name);
    if (character === undefined) return undefined;
  }
  if (source[end] === ";") end++;
  return { character, end };
}
