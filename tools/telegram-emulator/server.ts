// The HTTP side: routes POST/GET /bot<token>/<method> to the method handlers and answers
// the way api.telegram.org does, with the error code as the HTTP status. Every call made
// to a method is recorded.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ApiError } from "./api-error.js";
import { findMethod } from "./methods/registry.js";
import { Params } from "./params.js";
import { readParams } from "./request-body.js";
import type { ApiResponse } from "./types.js";
import type { BotState, World } from "./world.js";

const ROUTE = /^\/bot([^/]*)\/([^/]*)$/;

export interface RunningServer {
  apiRoot: string;
  close(): Promise<void>;
}

export async function startServer(
  world: World,
  host: string,
  port: number,
): Promise<RunningServer> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    handle(world, request, response).catch((error: unknown) => {
      // Only a bug in the emulator gets here; answer instead of leaving the bot hanging.
      send(response, failure(new ApiError(500, `Internal Server Error: ${String(error)}`)));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const { port: actualPort } = server.address() as AddressInfo;
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  return {
    apiRoot: `http://${hostInUrl}:${actualPort}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Waiting long polls get their (empty) answer before the connections go.
      for (const bot of world.bots.values()) bot.updates.release();
      await new Promise((resolve) => setImmediate(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

async function handle(
  world: World,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? "/", "http://emulator");
  const route = ROUTE.exec(url.pathname);
  if (!route) {
    send(response, failure(new ApiError(404, "Not Found")));
    return;
  }
  const [, token = "", requestedMethod = ""] = route;
  const time = new Date();
  const bot = world.botForToken(token);
  const method = findMethod(requestedMethod);
  const abort = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) abort.abort();
  });

  let params = new Params({});
  let answer: ApiResponse;
  try {
    if (!bot) throw new ApiError(401, "Unauthorized");
    if (!method) throw new ApiError(404, "Not Found");
    params = await readParams(request, url.searchParams);
    const forced = world.failures.take(method.name);
    if (forced) throw forced;
    const chatId = params.string("chat_id");
    await world.held.wait(method.name, chatId === undefined ? undefined : Number(chatId));
    answer = {
      ok: true,
      result: await method.handler({ world, bot, params, signal: abort.signal }),
    };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    answer = failure(error);
  }
  record(world, bot, method?.name ?? requestedMethod, params, answer, time);
  send(response, answer);
}

function record(
  world: World,
  bot: BotState | undefined,
  method: string,
  params: Params,
  response: ApiResponse,
  time: Date,
): void {
  world.calls.push({ botId: bot?.id, method, payload: { ...params.fields }, response, time });
}

function failure(error: ApiError): ApiResponse {
  return {
    ok: false,
    error_code: error.errorCode,
    description: error.description,
    ...(error.parameters && { parameters: error.parameters }),
  };
}

function send(response: ServerResponse, answer: ApiResponse): void {
  // A client that stopped waiting (an aborted long poll) gets nothing.
  if (response.destroyed || response.writableEnded) return;
  const body = JSON.stringify(answer);
  response.writeHead(answer.ok ? 200 : answer.error_code, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}
