import { createServer, type Server } from "node:http";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry, Summary } from "prom-client";

/** The bot's Prometheus metrics; served on METRICS_PORT when that is set. */
export class Metrics {
  readonly registry = new Registry();

  /** Time the bot spends on one update, provider calls included (waiting in line excluded). */
  readonly updateSeconds = new Summary({
    name: "bot_update_handling_seconds",
    help: "Time spent handling one update",
    labelNames: ["kind"] as const,
    percentiles: [0.5, 0.9, 0.99],
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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Gauges read when scraped: whether Redis answers, whether the provider's circuit is open. */
  watch(redisUp: () => boolean, providerState: () => string): void {
    new Gauge({
      name: "bot_redis_up",
      help: "1 while Redis answers",
      registers: [this.registry],
      collect() {
        this.set(redisUp() ? 1 : 0);
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

  serve(port: number, host: string): Promise<Server> {
    const server = createServer((request, response) => {
      if (request.url !== "/metrics") {
        response.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (body) => response.writeHead(200, { "content-type": this.registry.contentType }).end(body),
        () => response.writeHead(500).end(),
      );
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve(server));
    });
  }
}
