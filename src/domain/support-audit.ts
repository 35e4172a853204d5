// The audit trail of support lookups: who looked up what, where and when. It holds the
// looked-up codes (personal data), so the store keeps it bounded; the logs never hold them.

export const SUPPORT_COMMANDS = ["lookup", "refresh", "txn", "recent"] as const;
export type SupportCommand = (typeof SUPPORT_COMMANDS)[number];

export interface AuditRecord {
  /** The staff member who asked. */
  staff: number;
  /** The support group they asked in. */
  group: number;
  command: SupportCommand;
  /** What was looked up as given (after normalisation); empty for a plain /recent. */
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
