// setMyCommands lists per scope and language, and the lookup a Telegram client does to
// pick the menu it shows (https://core.telegram.org/bots/api#determining-list-of-commands).

import type { BotCommand, BotCommandScope } from "grammy/types";
import { canonicalJson } from "./canonical-json.js";

export class BotCommands {
  private readonly lists = new Map<string, BotCommand[]>();

  set(scope: BotCommandScope, language: string, commands: BotCommand[]): void {
    if (commands.length === 0) this.lists.delete(key(scope, language));
    else this.lists.set(key(scope, language), commands);
  }

  get(scope: BotCommandScope, language: string): BotCommand[] {
    return this.lists.get(key(scope, language)) ?? [];
  }

  /** The first scope, most specific first, with commands for the language or for all languages. */
  resolve(scopes: BotCommandScope[], language: string | undefined): BotCommand[] {
    for (const scope of scopes) {
      const forLanguage = language ? this.lists.get(key(scope, language)) : undefined;
      const commands = forLanguage ?? this.lists.get(key(scope, ""));
      if (commands) return commands;
    }
    return [];
  }
}

function key(scope: BotCommandScope, language: string): string {
  return canonicalJson({ scope, language });
}
