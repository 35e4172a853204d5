// The audit trail of staff actions: who looked up (or marked refunded) what, where and when.
// It holds the looked-up codes (personal data), so the store keeps it bounded; the logs never
// hold them.

export const SUPPORT_COMMANDS = ["lookup", "refresh", "txn", "recent"] as const;
type SupportCommand = (typeof SUPPORT_COMMANDS)[number];
/** Every audited staff action: the lookups, and the refunds' list and marks. */
export type StaffCommand = SupportCommand | "refunds" | "refunded";

export interface AuditRecord {
  /** The staff member who asked. */
  staff: number;
  /** The chat they asked in (a support group; an admin's or refunder's private chat). */
  group: number;
  command: StaffCommand;
  /** What it was about: the code looked up (normalised) or the refund's key; empty for a plain /recent or /refunds. */
  code: string;
  /** When (ms since the epoch). */
  at: number;
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
