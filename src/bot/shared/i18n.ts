// Every text from locales/: one Fluent bundle per locale, English behind Nepali.
//
// Fluent itself (@fluent/bundle) does the work. @grammyjs/i18n is not used: its Node build
// loads a Deno shim of 118 files (about 50 ms of start-up and 8 MB of idle memory) to read
// eight files, and negotiates the language again on every call.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FluentBundle, FluentResource } from "@fluent/bundle";
import type { MiddlewareFn } from "grammy";
import type { SubscriberStore } from "../../domain/subscribers.js";
import { type BotContext, LOCALES, type Locale } from "../context.js";
import type { Translate } from "./labels.js";

/** locales/ at the project's root, seen from src/bot/shared/ or from the bundle, dist/main.js. */
export const LOCALES_DIRECTORY = ["../../../locales", "../locales"]
  .map((path) => fileURLToPath(new URL(path, import.meta.url)))
  .find((directory) => existsSync(join(directory, "en"))) as string;

const FALLBACK: Locale = "en";

/** Nepali for Nepali clients, English for everyone else. */
export function localeFromTelegram(languageCode: string | undefined): Locale {
  return languageCode?.toLowerCase().startsWith("ne") ? "ne" : "en";
}

/** The locale of this update: the chat's choice, else the client's language. */
export function localeOf(ctx: BotContext): Locale {
  return (
    (ctx.chat ? ctx.session.language : undefined) ?? localeFromTelegram(ctx.from?.language_code)
  );
}

function isLocale(locale: string): locale is Locale {
  return (LOCALES as readonly string[]).includes(locale);
}

function loadBundle(directory: string, locale: Locale): FluentBundle {
  // Escaping is ours (HTML); Unicode isolation marks would show up in Telegram.
  const bundle = new FluentBundle(locale, { useIsolating: false });
  const folder = join(directory, locale);
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith(".ftl"))
    .sort()) {
    const errors = bundle.addResource(new FluentResource(readFileSync(join(folder, file), "utf8")));
    if (errors.length > 0) {
      throw new Error(`locales/${locale}/${file}: ${errors.map((e) => e.message).join("; ")}`);
    }
  }
  return bundle;
}

export class Translator {
  /**
   * Each locale's bundle, read and parsed when first asked for: parsing every file is about a
   * tenth of the start's CPU, and nothing before the first update needs a text (the command
   * menus, set after polling starts, are the first to ask).
   */
  private readonly bundles = new Map<Locale, FluentBundle>();
  /** Texts without variables, formatted once: a button label is asked for on every tap. */
  private readonly constant = new Map<string, string>();

  constructor(private readonly directory = LOCALES_DIRECTORY) {}

  private bundle(locale: Locale): FluentBundle {
    let bundle = this.bundles.get(locale);
    if (bundle === undefined) {
      bundle = loadBundle(this.directory, locale);
      this.bundles.set(locale, bundle);
    }
    return bundle;
  }

  /** The text of `key` in `locale`, in English when that locale lacks it, `{key}` when both do. */
  t(locale: string, key: string, variables?: Parameters<Translate>[1]): string {
    const known = isLocale(locale) ? locale : FALLBACK;
    if (variables === undefined) {
      const id = `${known}\n${key}`;
      let text = this.constant.get(id);
      if (text === undefined) {
        text = this.format(known, key);
        // Bounded by the locale files: an unknown key, which may be built from provider
        // data, is not kept.
        if (text !== `{${key}}`) this.constant.set(id, text);
      }
      return text;
    }
    return this.format(known, key, variables);
  }

  private format(locale: Locale, key: string, variables?: Parameters<Translate>[1]): string {
    for (const candidate of locale === FALLBACK ? [FALLBACK] : [locale, FALLBACK]) {
      const bundle = this.bundle(candidate);
      const message = bundle.getMessage(key);
      if (message?.value) return bundle.formatPattern(message.value, variables);
    }
    return `{${key}}`;
  }

  /** Every text whose key starts with `prefix`, in `locale` (the Mini App's page: no variables). */
  texts(locale: string, prefix: string): Record<string, string> {
    const keys = [...this.bundle(FALLBACK)._messages.keys()];
    return Object.fromEntries(
      keys.filter((key) => key.startsWith(prefix)).map((key) => [key, this.t(locale, key)]),
    );
  }

  /** `ctx.t`, in the update's locale as it is when called (so /language applies at once). */
  middleware(): MiddlewareFn<BotContext> {
    return (ctx, next) => {
      ctx.t = (key, variables) => this.t(localeOf(ctx), key, variables);
      return next();
    };
  }
}

/**
 * The language a user last spoke to the bot in, as the subscriber registry has it, for messages
 * sent outside their updates; English when unknown or unreadable (Redis may be what failed).
 */
export async function registeredLanguage(
  subscribers: Pick<SubscriberStore, "get">,
  userId: number,
): Promise<string> {
  try {
    return (await subscribers.get(userId))?.language ?? FALLBACK;
  } catch {
    return FALLBACK;
  }
}
