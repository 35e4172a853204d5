// The offers' WebSockets: one per QR, opened by the instance that made the offer (so one per
// offer however many replicas run), reconnecting with backoff while the QR can be paid. A
// message is a hint only: "scanned" is told to the buyer once, and a payment message makes the
// status call be asked now (the only word that pays). A socket that never opens, or drops for
// good, loses nothing: the status checks run on their own schedule. `ws` is loaded by the first
// socket.
import type { Purchase } from "../../../domain/purchase.js";
import type { Logger } from "../../logger.js";
import { readSocketMessage } from "./fonepay-wire.js";

/** Backoff between reconnections: doubling from the first, up to the last. */
const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 30_000;

interface Listening {
  stopped: boolean;
  socket: { close(): void; terminate(): void } | undefined;
  timer: NodeJS.Timeout | undefined;
  scannedSaid: boolean;
}

export class FonepaySockets {
  private readonly open = new Map<string, Listening>();

  constructor(
    private readonly log: Logger,
    private readonly on: {
      scanned(purchase: Purchase): Promise<void>;
      hint(prn: string): Promise<void>;
    },
  ) {}

  /** Listens on the QR's socket until `until`, or until stopped (paid, the process stops). */
  listen(prn: string, url: string, purchase: Purchase, until: number): void {
    if (this.open.has(prn)) return;
    const state: Listening = {
      stopped: false,
      socket: undefined,
      timer: undefined,
      scannedSaid: false,
    };
    this.open.set(prn, state);
    const end = setTimeout(() => this.stop(prn), Math.max(0, until - Date.now()));
    end.unref();
    void this.connect(prn, url, purchase, state, FIRST_RETRY_MS, end);
  }

  private async connect(
    prn: string,
    url: string,
    purchase: Purchase,
    state: Listening,
    retryMs: number,
    end: NodeJS.Timeout,
  ): Promise<void> {
    if (state.stopped) return;
    let next = retryMs;
    try {
      const { default: WebSocket } = await import("ws");
      // Stopped while `ws` was loading (paid, withdrawn, the process stopping): no socket.
      if (state.stopped) return;
      const socket = new WebSocket(url, { handshakeTimeout: 10_000 });
      state.socket = socket;
      socket.on("open", () => {
        // Heard from: the next drop starts the backoff again.
        next = FIRST_RETRY_MS;
        this.log.info({ prn }, "Fonepay socket open");
      });
      socket.on("message", (data) => this.heard(prn, String(data), purchase, state));
      socket.on("error", (error) => {
        this.log.info({ prn, err: { name: error.name } }, "Fonepay socket error");
      });
      socket.on("close", () => {
        state.socket = undefined;
        if (state.stopped) return clearTimeout(end);
        this.retry(prn, url, purchase, state, next, end);
      });
    } catch (error) {
      this.log.warn({ prn, err: error }, "Fonepay socket not opened");
      this.retry(prn, url, purchase, state, next, end);
    }
  }

  private retry(
    prn: string,
    url: string,
    purchase: Purchase,
    state: Listening,
    retryMs: number,
    end: NodeJS.Timeout,
  ): void {
    if (state.stopped) return;
    state.timer = setTimeout(
      () => void this.connect(prn, url, purchase, state, Math.min(retryMs * 2, LAST_RETRY_MS), end),
      retryMs,
    );
    state.timer.unref();
  }

  private heard(prn: string, text: string, purchase: Purchase, state: Listening): void {
    const hint = readSocketMessage(text);
    if (hint.kind === "scanned" && !state.scannedSaid) {
      state.scannedSaid = true;
      this.on.scanned(purchase).catch((error: unknown) => {
        this.log.info({ prn, err: error }, "could not say a Fonepay QR was scanned");
      });
    }
    if (hint.kind === "payment") {
      // Only a reason to ask: the status call alone says whether it was paid.
      this.on.hint(prn).catch((error: unknown) => {
        this.log.warn({ prn, err: error }, "Fonepay status not asked after a socket's message");
      });
    }
  }

  /** No more listening to this QR's socket. */
  stop(prn: string): void {
    const state = this.open.get(prn);
    if (!state) return;
    state.stopped = true;
    clearTimeout(state.timer);
    state.socket?.terminate();
    this.open.delete(prn);
  }

  stopAll(): void {
    for (const prn of [...this.open.keys()]) this.stop(prn);
  }
}
