// The command menus of private chats, in English (the default) and in Nepali; an admin's own
// chat lists the admin commands too (/report, /balance, /broadcast…: shared/staff.ts keeps them).
// The chat's menu button opens the shop (the Mini App), labelled in the chat's language.
import type { Api, MiddlewareFn } from "grammy";
import type { BotContext } from "./context.js";
import { localeOf, type Translator } from "./shared/i18n.js";
import { ADMIN_COMMANDS } from "./shared/staff.js";

const PRIVATE_COMMANDS = [
  "start",
  "topup",
  "history",
  "reminders",
  "forget",
  "cancel",
  "help",
  "language",
] as const;

const LOCALES = ["en", "ne"] as const;

export class CommandMenus {
  private readonly admins: ReadonlySet<number>;
  /** Admins whose own menu Telegram took from this process. */
  private readonly given = new Set<number>();

  constructor(
    private readonly api: Api,
    private readonly i18n: Translator,
    admins: readonly number[],
    /** The Mini App's address: the chat's menu button opens it. */
    private readonly shopUrl?: string,
  ) {
    this.admins = new Set(admins);
  }

  /** Every private chat's menu, then each admin's own; throws when an admin's was not set. */
  async register(): Promise<void> {
    if (this.shopUrl !== undefined) {
      // Every private chat's default, in English: a button has one label, not one per
      // language, so a chat in another language gets its own (labelMenuButton).
      await this.api.setChatMenuButton({ menu_button: this.shopButton(LOCALES[0], this.shopUrl) });
    }
    for (const locale of LOCALES) {
      await this.api.setMyCommands(this.described(PRIVATE_COMMANDS, locale), {
        scope: { type: "all_private_chats" },
        ...language(locale),
      });
    }
    // One admin's chat Telegram does not know yet (never started) leaves the others theirs.
    const set = await Promise.allSettled([...this.admins].map((admin) => this.give(admin)));
    const failed = set.filter((result) => result.status === "rejected").length;
    if (failed > 0) {
      throw new Error(`the admin command menu was not set for ${failed} admins yet`);
    }
  }

  /**
   * An admin Telegram did not know when the menus were set (one who had never written to the
   * bot: "chat not found") gets their menu with their first private message. Once per process;
   * a failure is tried again at their next message and never stands in the way.
   */
  readonly middleware: MiddlewareFn<BotContext> = async (ctx, next) => {
    await this.labelMenuButton(ctx);
    const admin = ctx.from?.id;
    if (
      admin !== undefined &&
      ctx.chat?.type === "private" &&
      this.admins.has(admin) &&
      !this.given.has(admin)
    ) {
      await this.give(admin).catch(() => undefined);
    }
    await next();
  };

  /**
   * The private chat's menu button in the chat's language (its first update, and again after
   * /language): a chat in English keeps the default, one in another language gets its own
   * button, which the session remembers so that it is set once per change. A failure is tried
   * again at the chat's next update and never stands in the way.
   */
  async labelMenuButton(ctx: BotContext): Promise<void> {
    const chat = ctx.chat;
    if (chat?.type !== "private") return;
    const locale = localeOf(ctx);
    const url = locale === LOCALES[0] ? undefined : this.shopUrl;
    const wanted = url === undefined ? undefined : `${locale} ${url}`;
    if (ctx.session.menuButton === wanted) return;
    const set = await this.api
      .setChatMenuButton({
        chat_id: chat.id,
        menu_button: url === undefined ? { type: "default" } : this.shopButton(locale, url),
      })
      .then(
        () => true,
        () => false,
      );
    if (set) ctx.session.menuButton = wanted;
  }

  /** The menu button that opens the shop, labelled in `locale`. */
  private shopButton(locale: string, url: string) {
    return {
      type: "web_app" as const,
      text: this.i18n.t(locale, "menu-button-shop"),
      web_app: { url },
    };
  }

  /** The admin's own menu, in both languages. */
  private async give(admin: number): Promise<void> {
    for (const locale of LOCALES) {
      await this.api.setMyCommands(
        this.described([...PRIVATE_COMMANDS, ...ADMIN_COMMANDS], locale),
        { scope: { type: "chat", chat_id: admin }, ...language(locale) },
      );
    }
    this.given.add(admin);
  }

  private described(commands: readonly string[], locale: string) {
    return commands.map((command) => ({
      command,
      description: this.i18n.t(locale, `command-${command}`),
    }));
  }
}

/** English is the menu of every language Telegram has no list of its own for. */
const language = (locale: (typeof LOCALES)[number]) =>
  locale === "en" ? {} : { language_code: locale };
