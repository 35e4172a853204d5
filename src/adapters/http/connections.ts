// Which connections a listener keeps, so that idle or slow clients never turn a webhook or a
// return page away. A connection is busy while a request of it is being answered, idle
// otherwise (waiting for its first request, or kept alive after an answer). At a cap (the
// listener's, or one client address's) the least recently active idle connection is closed to
// make room for the new one; only when every connection that counts is busy is the new one
// refused. So idle connections can hold no slot anybody needs, and one address can hold at most
// its share of busy ones.

/** What the budget needs of a connection: closing it. */
export interface Closable {
  destroy(): void;
}

export interface ConnectionLimits {
  /** Connections the listener keeps. */
  total: number;
  /** Connections one client address keeps; unlimited (but within `total`) when undefined. */
  perClient?: number | undefined;
}

interface Entry {
  client: string;
  /** Requests being answered. */
  busy: number;
}

export class ConnectionBudget<C extends Closable> {
  /** Every connection, least recently active first (re-inserted when it turns idle). */
  private readonly all = new Map<C, Entry>();
  /** Each client's connections, in the same order. */
  private readonly byClient = new Map<string, Map<C, Entry>>();

  constructor(private readonly limits: ConnectionLimits) {}

  get size(): number {
    return this.all.size;
  }

  /**
   * A new connection from `client`: true when it is kept (idle ones closed to make room if
   * needed), false when it must be refused (every connection in the way is busy).
   */
  admit(connection: C, client: string): boolean {
    const perClient = this.limits.perClient;
    const own = this.byClient.get(client);
    if (perClient !== undefined && (own?.size ?? 0) >= perClient) {
      if (!own || !this.closeOldestIdle(own)) return false;
    }
    if (this.all.size >= this.limits.total && !this.closeOldestIdle(this.all)) return false;
    const entry: Entry = { client, busy: 0 };
    this.all.set(connection, entry);
    const mine = this.byClient.get(client) ?? new Map<C, Entry>();
    mine.set(connection, entry);
    this.byClient.set(client, mine);
    return true;
  }

  /** A request of this connection is being answered. */
  requestStarted(connection: C): void {
    const entry = this.all.get(connection);
    if (entry) entry.busy += 1;
  }

  /** A request of this connection was answered (or given up); idle again when none is left. */
  requestEnded(connection: C): void {
    const entry = this.all.get(connection);
    if (!entry) return;
    entry.busy = Math.max(0, entry.busy - 1);
    if (entry.busy > 0) return;
    // The most recently active now: closed last.
    this.all.delete(connection);
    this.all.set(connection, entry);
    const mine = this.byClient.get(entry.client);
    mine?.delete(connection);
    mine?.set(connection, entry);
  }

  /** The connection closed, whoever closed it. */
  closed(connection: C): void {
    const entry = this.all.get(connection);
    if (!entry) return;
    this.all.delete(connection);
    const mine = this.byClient.get(entry.client);
    mine?.delete(connection);
    if (mine?.size === 0) this.byClient.delete(entry.client);
  }

  /** Closes the least recently active idle connection of these; false when all are busy. */
  private closeOldestIdle(connections: Map<C, Entry>): boolean {
    for (const [connection, entry] of connections) {
      if (entry.busy > 0) continue;
      this.closed(connection);
      connection.destroy();
      return true;
    }
    return false;
  }
}
