// A small load balancer for webhook tests: Telegram's POSTs go round-robin to the replicas
// (the next one when a replica cannot be reached, as a load balancer's retry would), or to
// every replica at once to play a delivery that reached two of them.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

interface Delivery {
  updateId: number;
  replica: number;
  status: number;
}

export interface Dispatcher {
  /** For WEBHOOK_URL (the replicas accept the POSTs at the same path). */
  readonly url: string;
  /** The replicas' base URLs, e.g. http://127.0.0.1:40001. */
  replicas: string[];
  /** Every update goes to every replica at once (a duplicated delivery). */
  toAll: boolean;
  readonly deliveries: Delivery[];
  close(): Promise<void>;
}

export const WEBHOOK_PATH = "/telegram/webhook";

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startDispatcher(): Promise<Dispatcher> {
  let next = 0;
  const dispatcher = {
    url: "",
    replicas: [] as string[],
    toAll: false,
    deliveries: [] as Delivery[],
    close: async (): Promise<void> => undefined,
  };

  async function forward(replica: number, body: Buffer, secret: string): Promise<number> {
    const response = await fetch(`${dispatcher.replicas[replica]}${WEBHOOK_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body,
    });
    await response.arrayBuffer();
    const updateId = (JSON.parse(body.toString()) as { update_id: number }).update_id;
    dispatcher.deliveries.push({ updateId, replica, status: response.status });
    return response.status;
  }

  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const secret = String(request.headers["x-telegram-bot-api-secret-token"] ?? "");
      const count = dispatcher.replicas.length;
      if (dispatcher.toAll) {
        const statuses = await Promise.all(
          dispatcher.replicas.map((_, index) => forward(index, body, secret).catch(() => 502)),
        );
        response.writeHead(Math.min(...statuses)).end();
        return;
      }
      for (let tried = 0; tried < count; tried++) {
        const replica = next++ % count;
        try {
          response.writeHead(await forward(replica, body, secret)).end();
          return;
        } catch {
          // Unreachable replica: the next one.
        }
      }
      response.writeHead(502).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  dispatcher.url = `http://127.0.0.1:${port}${WEBHOOK_PATH}`;
  dispatcher.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return dispatcher;
}
