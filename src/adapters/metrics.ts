import { createServer, type Server } from "node:http";
import { Counter, collectDefaultMetrics, Registry, Summary } from "prom-client";

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
    help: "Purchases by outcome",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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
