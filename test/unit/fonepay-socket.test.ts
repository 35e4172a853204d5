// The offers' sockets (src/adapters/payments/fonepay/fonepay-socket.ts) against a real
// WebSocket server on this machine.
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { FonepaySockets } from "../../src/adapters/payments/fonepay/fonepay-socket.js";
import type { Purchase } from "../../src/domain/purchase.js";
import { captureLogs } from "../support/log-capture.js";
import { until } from "../support/wait.js";

let server: WebSocketServer | undefined;
afterEach(() => server?.close());

describe("Fonepay's offer sockets", () => {
  // Review of #39, finding 13: a QR stopped (paid, withdrawn) while `ws` was still loading got a
  // socket anyway, which nothing would ever close.
  it("opens no socket for a QR stopped before its socket was opened, and opens the others", async () => {
    server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => server?.once("listening", resolve));
    const paths: string[] = [];
    server.on("connection", (_socket, request) => paths.push(request.url ?? ""));
    const root = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sockets = new FonepaySockets(captureLogs("warn").logger, {
      scanned: async () => undefined,
      hint: async () => undefined,
    });
    const purchase = {} as Purchase;
    const payableUntil = Date.now() + 60_000;

    sockets.listen("STOPPED", `${root}/stopped`, purchase, payableUntil);
    sockets.stop("STOPPED");
    sockets.listen("OPEN", `${root}/open`, purchase, payableUntil);

    // The control: the QR still listened to gets its socket (opened after the stopped one would be).
    await until(async () => paths.includes("/open"), 5_000);
    expect(paths).toEqual(["/open"]);
    sockets.stopAll();
  });
});
