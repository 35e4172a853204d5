// Turns a method's text or caption parameters into what Telegram stores: parse_mode or
// explicit entities applied, whitespace trimmed, and the length limits checked.

import type { User } from "grammy/types";
import { badRequest } from "./api-error.js";
import { explicitEntities, type FormattedText, normalizeFormattedText } from "./entities.js";
import { parseHtml } from "./html-parser.js";
import { parseLegacyMarkdown, parseMarkdownV2 } from "./markdown-parser.js";
import type { Params } from "./params.js";

const MAX_TEXT_LENGTH = 4096;
const MAX_CAPTION_LENGTH = 1024;

const PARSERS = new Map([
  ["html", parseHtml],
  ["markdownv2", parseMarkdownV2],
  ["markdown", parseLegacyMarkdown],
]);

/**
 * Parses `textField` with `parse_mode`, or takes `entitiesField` when given (Telegram then
 * ignores parse_mode).
 */
function readFormattedText(
  params: Params,
  textField: "text" | "caption",
  entitiesField: "entities" | "caption_entities",
  findUser: (id: number) => User | undefined,
): FormattedText {
  const source = params.string(textField) ?? "";
  const entities = explicitEntities(params.json(entitiesField));
  if (entities.length > 0) return normalizeFormattedText({ text: source, entities });
  const parseMode = params.string("parse_mode") ?? "";
  if (parseMode === "") return normalizeFormattedText({ text: source, entities: [] });
  const parser = PARSERS.get(parseMode.toLowerCase());
  if (!parser) throw badRequest("unsupported parse_mode");
  return normalizeFormattedText(parser(source, findUser));
}

/** Telegram counts characters (code points), not UTF-16 units, against its limits. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

export function readMessageText(
  params: Params,
  findUser: (id: number) => User | undefined,
): FormattedText {
  const formatted = readFormattedText(params, "text", "entities", findUser);
  if (formatted.text === "") throw badRequest("message text is empty");
  if (characterCount(formatted.text) > MAX_TEXT_LENGTH) throw badRequest("message is too long");
  return formatted;
}

export function readCaption(
  params: Params,
  findUser: (id: number) => User | undefined,
): FormattedText {
  const formatted = readFormattedText(params, "caption", "caption_entities", findUser);
  if (characterCount(formatted.text) > MAX_CAPTION_LENGTH) {
    throw badRequest("message caption is too long");
  }
  return formatted;
}
