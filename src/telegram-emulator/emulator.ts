// createTelegramEmulator: a local stand-in for api.telegram.org that a real grammY bot
// talks to over HTTP (`client.apiRoot`), plus the handles tests and the playground use to
// act as users, inject updates and faults, and look at what the bot did.

import { ChatUser, GroupDriver } from "./driver.js";
import { setBlocked } from "./membership.js";
import { findMethod } from "./methods/registry.js";
import { startServer } from "./server.js";
import type { TelegramEmulator, TelegramEmulatorOptions } from "./types.js";
import { World } from "./world.js";

export async function createTelegramEmulator(
  options: TelegramEmulatorOptions = {},
): Promise<TelegramEmulator> {
  const world = new World(options.bots ?? [], options.floodLimit);
  const server = await startServer(world, options.host ?? "127.0.0.1", options.port ?? 0);

  return {
    apiRoot: server.apiRoot,
    close: () => server.close(),

    user(spec, driverOptions = {}) {
      world.upsertUser(spec);
      if (driverOptions.botToken !== undefined) world.resolveBot(driverOptions.botToken);
      return new ChatUser(world, spec.id, spec.id, driverOptions.botToken);
    },

    group(spec, driverOptions = {}) {
      world.upsertGroup(spec);
      if (driverOptions.botToken !== undefined) world.resolveBot(driverOptions.botToken);
      return new GroupDriver(world, spec.id, driverOptions.botToken);
    },

    injectUpdate: (bot, update) => world.inject(world.resolveBot(bot), update),
    blockUser: (userId, bot) => setBlocked(world, world.resolveBot(bot), userId, true),
    unblockUser: (userId, bot) => setBlocked(world, world.resolveBot(bot), userId, false),

    failNext(method, error, times = 1) {
      const known = findMethod(method);
      if (!known) throw new Error(`failNext: "${method}" is not a method the emulator implements`);
      world.failures.add(known.name, error, times);
    },

    setFloodLimit(limit) {
      world.floodLimit = limit;
    },

    calls: (method) =>
      world.calls.filter(
        (call) => method === undefined || call.method.toLowerCase() === method.toLowerCase(),
      ),

    messages: (chatId, bot) => world.chatLog(world.resolveBot(bot), chatId)?.list() ?? [],
    file: (fileId) => world.files.get(fileId),
    onEvent: (listener) => world.subscribe(listener),
  };
}
