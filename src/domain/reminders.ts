// Expiry reminders, opt-in: sent at a subscription's end minus each configured number of days,
// once, and not at all when the provider shows it renewed meanwhile.

import { listedEnd } from "./listed-end.js";
import type { ProviderTime, ServiceKind } from "./model.js";
import type { Log, ProviderPort } from "./ports.js";

export interface Reminder {
  id: string;
  user: number;
  language: string;
  cuid: string;
  connection: { service: ServiceKind; id: string };
  bouquet: { code: string; name: string };
  /** The subscription's end as it was when the user asked. */
  end: number;
  /**
   * Set for a customer the user proved theirs (Purchase.proved): its connection is shown in
   * full. Absent: typed, or set before this was kept: masked.
   */
  proved?: true;
  /** Days before the end it fires: a user has one reminder per subscription and offset. */
  daysBefore: number;
  fireAt: number;
}

export interface ReminderStore {
  /**
   * Adds them all, each in place of the user's reminder of the same connection, bouquet and
   * offset; none (false) when the user would then have more than `perUser` reminders.
   */
  add(reminders: Reminder[], perUser: number): Promise<boolean>;
  /** Due reminders, each handed to one caller only (whichever instance takes it). */
  takeDue(now: number, limit: number): Promise<Reminder[]>;
  nextDue(): Promise<number | null>;
  /** A user's reminders still to come, soonest first. */
  ofUser(user: number): Promise<Reminder[]>;
  cancel(user: number, id: string): Promise<boolean>;
  cancelAll(user: number): Promise<void>;
  /** A sent reminder is kept a while for its Renew button, and counted. */
  keepSent(reminder: Reminder): Promise<void>;
  sent(id: string): Promise<Reminder | null>;
  /** Reminders sent, across instances, for the admins (the renewals that followed are in the ledger). */
  sentCount(): Promise<number>;
}

export type ReminderDelivery = "sent" | "blocked" | "failed";

export interface ReminderChannel {
  /** `end` is the end the provider lists now (null when it could not be read). */
  send(reminder: Reminder, end: ProviderTime | null): Promise<ReminderDelivery>;
}

export interface ReminderOptions {
  /** The longest sleep between looks at the store (a reminder added elsewhere is seen then). */
  pollMs: number;
  onResult?(result: ReminderDelivery | "renewed"): void;
}

/** Sends due reminders; any number of instances may run one. */
export class ReminderSender {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly store: ReminderStore,
    private readonly provider: Pick<ProviderPort, "getPackages">,
    private readonly channel: ReminderChannel,
    private readonly log: Log,
    private readonly options: ReminderOptions,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Looks again at once (a reminder was just added here). */
  wake(): void {
    if (this.stopped || this.running) return;
    this.running = this.pass().finally(() => {
      this.running = undefined;
    });
  }

  private async pass(): Promise<void> {
    try {
      for (;;) {
        const due = await this.store.takeDue(this.now(), 20);
        if (due.length === 0) break;
        await Promise.all(due.map((reminder) => this.deliver(reminder)));
      }
    } catch (error) {
      this.log.warn({ err: error }, "reminders could not be read");
    }
    if (this.stopped) return;
    const next = await this.store.nextDue().catch(() => null);
    const delay = next === null ? this.options.pollMs : Math.max(0, next - this.now());
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), Math.min(delay, this.options.pollMs));
    this.timer.unref();
  }

  private async deliver(reminder: Reminder): Promise<void> {
    const end = await listedEnd(
      this.provider,
      { cuid: reminder.cuid, connection: reminder.connection, code: reminder.bouquet.code },
      this.log,
      { reminderId: reminder.id },
    );
    // Renewed since the user asked: the subscription now ends later.
    if (end?.at != null && end.at > reminder.end) {
      this.options.onResult?.("renewed");
      return;
    }
    const result = await this.channel.send(reminder, end).catch((error: unknown) => {
      this.log.warn({ err: error, reminderId: reminder.id }, "reminder not sent");
      return "failed" as const;
    });
    this.options.onResult?.(result);
    if (result === "blocked") await this.store.cancelAll(reminder.user);
    if (result === "sent") await this.store.keepSent(reminder);
  }
}
