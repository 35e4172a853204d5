// The audit trail of staff commands: who looked up (or marked refunded) what, where and when,
// and who was refused a staff command. It holds the looked-up codes (personal data), so the
// store keeps it bounded; the logs never hold them.

export const SUPPORT_COMMANDS = ["lookup", "refresh", "txn", "recent"] as const;
type SupportCommand = (typeof SUPPORT_COMMANDS)[number];
/** Every audited staff command: the lookups, and the refunds' list and marks. */
export type StaffCommand = SupportCommand | "refunds" | "refunded";

/**
 * Why a staff command was refused: the sender is not staff, may not mark refunds done, sent it
 * as a chat (an anonymous admin, a channel), which names no person, or it was not their own
 * message (forwarded, or written by an inline bot).
 */
export type Refusal = "not-staff" | "not-refunder" | "anonymous" | "not-own-message";

export interface AuditRecord {
  /** Who sent the command: a user id, or with `asChat` the id of the chat it was sent as. */
  sender: number;
  /** Sent as a chat (an anonymous admin's group, a channel): `sender` names no person. */
  asChat?: true;
  /** The chat it was sent in (a support group; an admin's or refunder's private chat). */
  group: number;
  command: StaffCommand;
  /**
   * What it was about: the code looked up (normalised) or the refund's key; empty for a plain
   * /recent or /refunds, and for a refusal (what a stranger typed is not kept).
   */
  code: string;
  /** When (ms since the epoch). */
  at: number;
  /** Set when the command was refused (and nothing done): why. */
  refused?: Refusal;
}

export interface StoredAuditRecord extends AuditRecord {
  id: string;
}

export interface AuditLog {
  /** Appends one record; returns its id. */
  record(record: AuditRecord): Promise<string>;
  /** The newest `count` records, newest first. */
  latest(count: number): Promise<StoredAuditRecord[]>;
}
