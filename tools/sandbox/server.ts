// createSandbox: an in-memory HTTP implementation of the provider API (both versions, with
// and without the staging prefix), plus fault injection and a record of what it received.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { CONTROL_PREFIX, handleControl } from "./control.js";
import { Delays } from "./delays.js";
import { FaultTable, respond } from "./faults.js";
import { parseJson, readBody, sendText } from "./http.js";
import { type OperationResult, performOperation } from "./operations.js";
import { speak as speakAs, type WireAnswer } from "./profiles.js";
import { SandboxState } from "./state.js";
import { isValidTimeZone } from "./time.js";
import {
  API_VERSIONS,
  type ApiVersion,
  SANDBOX_OPERATIONS,
  type Sandbox,
  type SandboxOperation,
  type SandboxOptions,
  type SandboxProfile,
} from "./types.js";
import { fail, unauthorized } from "./wire.js";

export { FAILURE_CODES, SUCCESS_CODES } from "./codes.js";
export { FOREIGN_FAILURES } from "./profiles.js";
export type {
  ApiVersion,
  DirectoryEntry,
  RecordedRequest,
  Sandbox,
  SandboxFault,
  SandboxOperation,
  SandboxOptions,
  SandboxProfile,
  SandboxTransaction,
  WireTransaction,
} from "./types.js";

interface OperationRoute {
  staging: boolean;
  version: ApiVersion;
  operation: SandboxOperation;
}

const OPERATION_PATH = /^(\/staging)?\/api\/third-party\/([^/]+)\/([^/]+)\/?$/;

function matchOperation(path: string): OperationRoute | undefined {
  const match = OPERATION_PATH.exec(path);
  const version = API_VERSIONS.find((v) => v === match?.[2]);
  const operation = SANDBOX_OPERATIONS.find((o) => o === match?.[3]);
  return version && operation ? { staging: Boolean(match?.[1]), version, operation } : undefined;
}

function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? "sandbox-token";
  const checkoutTtlMs = options.checkoutTtlMs ?? 300_000;
  const timeZone = options.timeZone ?? "UTC";
  const now = options.now ?? (() => new Date());
  if (!isValidTimeZone(timeZone)) throw new RangeError(`Unknown time zone "${timeZone}"`);

  const state = new SandboxState(timeZone, now());
  let profile: SandboxProfile = options.profile ?? "strict";
  const speak = (operation: SandboxOperation | undefined, result: OperationResult) =>
    speakAs(profile, operation, result, timeZone);
  const answer = (response: ServerResponse, wire: WireAnswer) =>
    sendText(response, wire.status, wire.contentType, wire.text);
  const faults = new FaultTable();
  const delays = new Delays();
  const sockets = new Set<Socket>();

  async function handleOperation(
    request: IncomingMessage,
    response: ServerResponse,
    route: OperationRoute,
  ): Promise<void> {
    const text = await readBody(request);
    const body = parseJson(text);
    const authorized = bearerToken(request.headers.authorization) === token;
    state.requests.push({
      ...route,
      body: body.valid ? body.value : text,
      contentType: request.headers["content-type"],
      authorized,
      at: now(),
    });
    if (!authorized) {
      return answer(response, speak(route.operation, { status: 401, response: unauthorized() }));
    }
    await respond(faults.take(route.operation), {
      operation: route.operation,
      response,
      perform: () =>
        performOperation(route.operation, body, {
          state,
          version: route.version,
          now: now(),
          checkoutTtlMs,
        }),
      destroyConnection: () => request.socket.destroy(),
      delays,
      profile,
      speak: (result) => speak(route.operation, result),
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://sandbox").pathname;
    if (path.startsWith(CONTROL_PREFIX)) return handleControl(request, response, path, sandbox);
    const route = request.method === "POST" ? matchOperation(path) : undefined;
    if (route) return handleOperation(request, response, route);
    const missing = fail("SBX_ROUTE_NOT_FOUND", `No route ${request.method} ${path}`);
    answer(response, speak(undefined, { status: 404, response: missing }));
  }

  const server = createServer((request, response) => {
    // A client that stopped waiting makes writes fail; that is not the sandbox's problem.
    response.on("error", () => {});
    handle(request, response).catch((error: unknown) => {
      if (request.destroyed) return;
      const message = error instanceof Error ? error.message : String(error);
      const failed = fail("SBX_INTERNAL_ERROR", `Sandbox error: ${message}`);
      answer(response, speak(undefined, { status: 500, response: failed }));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  const sandbox: Sandbox = {
    origin,
    baseUrl: ({ staging = false } = {}) => (staging ? `${origin}/staging` : origin),
    get requests() {
      return state.requests;
    },
    get topups() {
      return state.topups;
    },
    get profile() {
      return profile;
    },
    set profile(next: SandboxProfile) {
      profile = next;
    },
    setFault: (operation, fault) => faults.set(operation, fault),
    clearFaults: () => faults.clear(),
    reset: () => {
      state.reset(now());
      faults.clear();
    },
    directory: () => state.directory(),
    close: () =>
      new Promise<void>((resolve) => {
        delays.cancelAll();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
  return sandbox;
}
