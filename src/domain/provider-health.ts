// The provider as a whole: is it answering, and does it accept our token? Every call goes
// through here. After `failuresToOpen` calls in a row the provider could not answer, or at once
// when it refuses our token, the circuit opens: calls fail at once instead of each user waiting
// for a timeout, one probe call at a time tests recovery, and operators are told (once, then at
// most every `alertRepeatMs`), and told again when it recovers.
import type { Connection, CustomerInfo, PackageOffer, TopupRequest, Transaction } from "./model.js";
import type { Clock, Log, ProviderPort } from "./ports.js";
import {
  type ProviderOperation,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
  TopupOutcomeUnknownError,
} from "./provider-errors.js";

export type ProviderAlert =
  | { kind: "token-refused" }
  | { kind: "down"; failures: number }
  | { kind: "recovered" };

/** Tells every operator (admins, support groups); throws when that fails. */
export interface AlertChannel {
  send(alert: ProviderAlert): Promise<void>;
}

/** Alerts shared by all instances: only one instance sends each. */
export interface AlertLedger {
  /**
   * True when this instance may send this outage alert now (none of its kind was sent within
   * `ttlMs`); the outage is then on record.
   */
  claim(kind: "token-refused" | "down", ttlMs: number): Promise<boolean>;
  /** True for the first instance to see an outage on record end: it says "recovered". */
  endOutage(): Promise<boolean>;
}

export type CallOutcome = "ok" | "refused" | "unauthorized" | "unavailable" | "circuit-open";

export interface ProviderHealthOptions {
  failuresToOpen: number;
  /** How long an open circuit waits before one probe call. */
  probeAfterMs: number;
  alertRepeatMs: number;
  /** Observes every call (metrics). */
  onCall?(operation: ProviderOperation, outcome: CallOutcome, seconds: number): void;
  onAlert?(kind: ProviderAlert["kind"]): void;
}

type Circuit =
  | { state: "closed"; failures: number }
  | { state: "open"; cause: "down" | "token-refused"; probeAt: number; probing: boolean };

export class ProviderHealth implements ProviderPort {
  private circuit: Circuit = { state: "closed", failures: 0 };
  private alerted = false;

  constructor(
    private readonly provider: ProviderPort,
    private readonly alerts: AlertChannel,
    private readonly ledger: AlertLedger,
    private readonly options: ProviderHealthOptions,
    private readonly log: Log,
    private readonly now: Clock = Date.now,
  ) {}

  /** For readiness and logs: closed, or open and why. */
  get state(): "closed" | "down" | "token-refused" {
    return this.circuit.state === "closed" ? "closed" : this.circuit.cause;
  }

  getCustomer(code: string, signal?: AbortSignal): Promise<CustomerInfo> {
    return this.call("get-customer-information", () => this.provider.getCustomer(code, signal));
  }

  getPackages(
    cuid: string,
    connection: Pick<Connection, "service" | "id">,
    signal?: AbortSignal,
  ): Promise<PackageOffer> {
    return this.call("get-subscription-package", () =>
      this.provider.getPackages(cuid, connection, signal),
    );
  }

  topup(request: TopupRequest, signal?: AbortSignal): Promise<Transaction> {
    return this.call("subscription-package-topup", () => this.provider.topup(request, signal));
  }

  txnStatus(checkoutId: string, signal?: AbortSignal): Promise<Transaction> {
    return this.call("txn-status", () => this.provider.txnStatus(checkoutId, signal));
  }

  private async call<T>(operation: ProviderOperation, run: () => Promise<T>): Promise<T> {
    const circuit = this.circuit;
    if (circuit.state === "open") {
      if (circuit.probing || this.now() < circuit.probeAt) {
        this.options.onCall?.(operation, "circuit-open", 0);
        // Nothing is sent: the caller reads this like any failure of its kind.
        throw circuit.cause === "token-refused"
          ? new ProviderUnauthorizedError(operation, 0)
          : new ProviderUnavailableError(operation, "the provider is down (circuit open)");
      }
      circuit.probing = true;
    }
    const started = this.now();
    try {
      const result = await run();
      this.observe(operation, "ok", started);
      await this.answered();
      return result;
    } catch (error) {
      const outcome = outcomeOf(error);
      this.observe(operation, outcome, started);
      if (outcome === "refused") await this.answered();
      else await this.failed(outcome === "unauthorized" ? "token-refused" : "down");
      throw error;
    } finally {
      if (this.circuit.state === "open") this.circuit.probing = false;
    }
  }

  private observe(operation: ProviderOperation, outcome: CallOutcome, started: number): void {
    this.options.onCall?.(operation, outcome, (this.now() - started) / 1000);
  }

  /** The provider answered (a refusal is an answer too). */
  private async answered(): Promise<void> {
    const wasOpen = this.circuit.state === "open";
    this.circuit = { state: "closed", failures: 0 };
    if (!wasOpen) return;
    this.log.info({}, "the provider answers again");
    // Without the shared ledger, the instance that alerted says it.
    const tell = await this.ledger.endOutage().catch(() => this.alerted);
    this.alerted = false;
    if (tell) await this.send({ kind: "recovered" });
  }

  private async failed(cause: "down" | "token-refused"): Promise<void> {
    const failures = this.circuit.state === "closed" ? this.circuit.failures + 1 : 0;
    const opens = cause === "token-refused" || failures >= this.options.failuresToOpen;
    if (this.circuit.state === "closed" && !opens) {
      this.circuit = { state: "closed", failures };
      return;
    }
    if (this.circuit.state === "closed") {
      this.log.error({ cause, failures }, "the provider is failing: top-ups paused");
    }
    this.circuit = {
      state: "open",
      cause,
      probeAt: this.now() + this.options.probeAfterMs,
      probing: false,
    };
    const alert: ProviderAlert =
      cause === "token-refused"
        ? { kind: "token-refused" }
        : { kind: "down", failures: Math.max(failures, this.options.failuresToOpen) };
    const claimed = await this.ledger
      .claim(alert.kind, this.options.alertRepeatMs)
      // Without the shared ledger, each instance alerts once per outage.
      .catch(() => !this.alerted);
    if (!claimed) return;
    this.alerted = true;
    await this.send(alert);
  }

  private async send(alert: ProviderAlert): Promise<void> {
    try {
      await this.alerts.send(alert);
      this.options.onAlert?.(alert.kind);
    } catch (error) {
      this.log.warn({ err: error, alert: alert.kind }, "could not alert the operators");
    }
  }
}

function outcomeOf(error: unknown): Exclude<CallOutcome, "ok" | "circuit-open"> {
  // A top-up whose token was refused has an unknown outcome, but the token is still refused.
  const cause = error instanceof TopupOutcomeUnknownError ? error.cause : error;
  if (cause instanceof ProviderUnauthorizedError) return "unauthorized";
  // A refusal or an odd answer is still an answer: the provider is up.
  if (error instanceof ProviderRejectedError || error instanceof ProviderProtocolError) {
    return "refused";
  }
  return "unavailable";
}
