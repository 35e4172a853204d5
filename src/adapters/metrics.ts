import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The bot's Prometheus metrics, served at /metrics by the HTTP server when it runs. */
export class Metrics {
  readonly registry = new Registry();

  /**
   * Time the bot spends on one update, provider calls included (waiting in line excluded). A
   * histogram: replicas' buckets add up (a summary's quantiles do not), and an observation is
   * a bucket count instead of a digest update on every update.
   */
  readonly updateSeconds = new Histogram({
    name: "bot_update_handling_seconds",
    help: "Time spent handling one update",
    labelNames: ["kind"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly purchases = new Counter({
    name: "bot_purchases_total",
    help: "Purchases by outcome (charged, not-charged, unknown, busy...) and reason",
    labelNames: ["outcome", "reason"] as const,
    registers: [this.registry],
  });

  readonly providerCalls = new Histogram({
    name: "bot_provider_call_seconds",
    help: "Provider calls by operation and outcome (ok, refused, unauthorized, unavailable, circuit-open)",
    labelNames: ["operation", "outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly alerts = new Counter({
    name: "bot_provider_alerts_total",
    help: "Alerts sent to operators, by kind (token-refused, down, recovered)",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  readonly reminders = new Counter({
    name: "bot_reminders_total",
    help: "Expiry reminders that fell due, by result: sent, renewed (the provider showed the subscription renewed: not sent), blocked, failed",
    labelNames: ["result"] as const,
    registers: [this.registry],
  });
  readonly reminderRenewals = new Counter({
    name: "bot_reminder_renewals_total",
    help: "Top-ups charged from a reminder's Renew button",
    registers: [this.registry],
  });
  readonly reconciliations = new Counter({
    name: "bot_reconciliations_total",
    help: "Open purchases taken up by reconciliation (left by a stopped or crashed instance, or still unknown), by result",
    labelNames: ["result"] as const,
    registers: [this.registry],
  });

  readonly webhookRejections = new Counter({
    name: "bot_webhook_rejections_total",
    help: "Webhook requests refused, by reason (secret, stopping, malformed)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });

  readonly redisErrors = new Counter({
    name: "bot_redis_errors_total",
    help: "Times Redis became unreachable, and commands that failed because of it",
    registers: [this.registry],
  });

  readonly lookupsLimited = new Counter({
    name: "bot_lookups_limited_total",
    help: "Customer lookups refused because the user reached LOOKUP_LIMIT",
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Gauges read when scraped: Redis and the ledger up, the provider's circuit, the broadcast queue's depth. */
  watch(
    redisUp: () => boolean,
    databaseUp: () => boolean,
    providerState: () => string,
    queueDepth: () => Promise<number>,
  ): void {
    new Gauge({
      name: "bot_broadcast_queue_depth",
      help: "Broadcast jobs waiting, delayed or running",
      registers: [this.registry],
      async collect() {
        this.set(await queueDepth().catch(() => Number.NaN));
      },
    });
    new Gauge({
      name: "bot_redis_up",
      help: "1 while Redis answers",
      registers: [this.registry],
      collect() {
        this.set(redisUp() ? 1 : 0);
      },
    });
    new Gauge({
      name: "bot_database_up",
      help: "1 while the ledger's database answers",
      registers: [this.registry],
      collect() {
        this.set(databaseUp() ? 1 : 0);
      },
    });
    new Gauge({
      name: "bot_provider_circuit_open",
      help: "1 while calls to the provider fail at once (down or token refused)",
      labelNames: ["cause"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        const state = providerState();
        if (state !== "closed") this.set({ cause: state }, 1);
      },
    });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
