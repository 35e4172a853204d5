// The playground's log is for a person at a terminal: each entry one line in words, its
// fields and errors included, never the bot's JSON.
import { Writable } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { expect, it } from "vitest";
import { playgroundLogger } from "../../tools/playground/log.js";

it("writes a warning and an error as lines in words, with their fields", () => {
  let written = "";
  const terminal = new Writable({
    write(chunk, _encoding, done) {
      written += String(chunk);
      done();
    },
  });
  const logger = playgroundLogger("warn", terminal);
  logger.info("not at this level");
  logger.warn({ dataDir: "./data", attempts: 3 }, "the disk is nearly full");
  logger.error({ err: new TypeError("no such thing") }, "reminders could not be read");
  // Colours, when the terminal running the test has them, are not the words.
  const lines = stripVTControlCharacters(written).trim().split("\n");
  expect(lines).toEqual([
    "WARN: the disk is nearly full (dataDir: ./data; attempts: 3)",
    "ERROR: reminders could not be read (err: TypeError: no such thing)",
  ]);
});
