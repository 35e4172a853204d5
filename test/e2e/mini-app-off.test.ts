// Without PUBLIC_URL the bot runs as before, chat only: no shop button, no menu button, no
// Mini App addresses, and it says so once at start.
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectReply } from "../support/chat.js";
import { type Stack, startStack } from "../support/stack.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack("mini_app_off");
});
afterAll(() => stack.stop());

it("offers no shop, sets no menu button, and says once that it is chat only", async () => {
  const user = stack.emulator.user({ id: 9951, first_name: "Off", language_code: "en" });
  const welcome = await expectReply(user, () => user.sendText("/start"), /./);
  const buttons = welcome.reply_markup?.inline_keyboard.flat() ?? [];
  expect(buttons.length).toBeGreaterThan(0);
  expect(buttons.some((b) => "web_app" in b)).toBe(false);
  expect(stack.emulator.calls("setChatMenuButton")).toEqual([]);
  const said = stack.logs().filter((line) => line.includes("the Mini App is off"));
  expect(said).toHaveLength(1);
});
