import type { Logger } from "../adapters/logger.js";
import type { Metrics } from "../adapters/metrics.js";
import type { Config } from "../config.js";
import type { BroadcastContent, BroadcastStore } from "../domain/broadcast.js";
import type { LookupLimit } from "../domain/lookup-limit.js";
import type { PaymentService } from "../domain/payment-service.js";
import type { ProviderPort } from "../domain/ports.js";
import type { ProviderBalanceLedger } from "../domain/provider-balance.js";
import type { PurchaseStore } from "../domain/purchase.js";
import type { Reconciliations } from "../domain/reconciliation-runs.js";
import type { RefundDesk } from "../domain/refunds.js";
import type { ReminderStore } from "../domain/reminders.js";
import type { ReportSource } from "../domain/report.js";
import type { SavedConnectionStore } from "../domain/saved-connections.js";
import type { SubscriberStore } from "../domain/subscribers.js";
import type { LookupRefStore } from "../domain/support.js";
import type { AuditLog } from "../domain/support-audit.js";
import type { TopupService } from "../domain/topup.js";
import type { Translator } from "./shared/i18n.js";
import type { StaffRoles } from "./shared/staff.js";
import type { UpdateGate } from "./shared/update-gate.js";
import type { ValueFormatter } from "./shared/values.js";

/** Values prepared for a chat outside its updates, taken by the chat's own next update. */
interface DraftStore {
  put(chatId: number, id: string, value: unknown): Promise<void>;
  take(chatId: number, id: string): Promise<unknown>;
}

/** The listings of journeys, stored once and read by each tap (see topup/journey.ts). */
interface ListingStore {
  /** `group`: dropped with the others of its group (dropGroup). */
  put(journeyId: string, listing: unknown, group?: string): Promise<void>;
  /** null when it expired (the journey is then over). */
  get(journeyId: string): Promise<unknown>;
  /** The listings put under `group`, gone. */
  dropGroup(group: string): Promise<void>;
}

/** /cancel across instances: pending provider calls of a flow, and when chats cancelled. */
interface CancelMarks {
  busy(chatId: number, at: number): Promise<void>;
  idle(chatId: number): Promise<void>;
  /** True when a provider call of the chat's flow was pending. */
  mark(chatId: number, at: number): Promise<boolean>;
  /** Whether this process has a provider call of the chat's flow pending. */
  waitsHere(chatId: number): boolean;
  since(chatId: number, at: number): Promise<boolean>;
}

/** What the Telegram layer needs from the rest of the application. */
export interface BotDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  provider: ProviderPort;
  topups: TopupService;
  /** Subscribers pay in the bot (PAYMENT_MODE=telegram); undefined when nobody pays here. */
  payments?: PaymentService;
  refunds?: RefundDesk;
  purchases: PurchaseStore;
  /** The ledger as the admins' finance reports read it. */
  reports: ReportSource;
  /** The provider balance admins record and the bot expects. */
  providerBalance: ProviderBalanceLedger;
  /** After an entry: alerts the admins when the balance expected is low (BALANCE_ALERT_BELOW). */
  checkBalance(): Promise<void>;
  /** False when the provider balance cannot pay this price (BALANCE_STOP_BELOW). */
  balanceAllows(price: string): Promise<boolean>;
  /** The daily reconciliation's runs and findings (/reconcile, /resolve). */
  reconciliations: Reconciliations;
  /** Exactly once, one chat at a time, the session: see shared/update-gate.ts. */
  gate: UpdateGate;
  drafts: DraftStore;
  listings: ListingStore;
  /** Connections each user topped up before: one-tap choices on /topup. */
  savedConnections: SavedConnectionStore;
  reminders: ReminderStore;
  /** A reminder was added here: the sender looks at the store again now. */
  wakeReminders(): void;
  cancels: CancelMarks;
  audit: AuditLog;
  /** Who is staff, who may mark refunds done (shared/staff.ts). */
  staff: StaffRoles;
  lookupRefs: LookupRefStore;
  /** How many customer lookups a subscriber may make (support and admins are not limited). */
  lookupLimit: LookupLimit;
  subscribers: SubscriberStore;
  broadcasts: BroadcastStore;
  /** Hands a stored broadcast to the sending queue. */
  enqueueBroadcast(id: string): Promise<void>;
  /** Sends a broadcast's content to one chat exactly as recipients will see it. */
  previewBroadcast(chatId: number, language: string, content: BroadcastContent): Promise<void>;
  i18n: Translator;
  formatter(locale: string): ValueFormatter;
  now(): number;
  /** True when an error is the store (Redis) being unreachable. */
  isStoreFailure(error: unknown): boolean;
}
