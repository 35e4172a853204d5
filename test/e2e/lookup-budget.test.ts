// The hourly budget of customer lookups, all users together, across instances: exceeding it
// alerts the operators once, and users whose window starts then get fewer lookups while users
// already looking up carry on. Two instances of the bot on one Redis prefix: the first polls,
// and when it stops the second takes over with the counts where the first left them.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { expectReply } from "../support/chat.js";
import { captureLogs } from "../support/log-capture.js";
import { type Stack, startStack } from "../support/stack.js";

const ADMIN = 6801;
const ALERT = "Unusually many customer lookups";

describe("the lookup budget", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("lookup_budget", {
      LOOKUP_LIMIT: "4",
      LOOKUP_BUDGET_PER_HOUR: "3",
      ADMIN_USER_IDS: String(ADMIN),
      POLLING_LEASE_SECONDS: "2",
    });
  });
  afterAll(() => stack.stop());

  it("alerts the operators once across instances, and slows down only users starting a window", async () => {
    const admin = stack.emulator.user({ id: ADMIN, first_name: "Ad", language_code: "en" });
    const alerts = () => admin.messages().filter((m) => m.text?.includes(ALERT));
    const user = (id: number) => stack.emulator.user({ id, first_name: "U", language_code: "en" });
    const found = (who: ReturnType<typeof user>) =>
      expectReply(who, () => who.sendText("/topup 1000001"), "Choose a package", 10_000);
    const refused = (who: ReturnType<typeof user>) =>
      expectReply(who, () => who.sendText("/topup 1000001"), "Too many attempts", 10_000);

    const early = user(6811);
    await found(early);
    await found(user(6812));
    await found(user(6813));
    expect(alerts()).toEqual([]);

    // The fourth lookup of the hour exceeds the budget: one alert, with the budget.
    const told = admin.waitForText(ALERT);
    const late = user(6814);
    await found(late);
    expect((await told).text).toContain("more than 3 in the last hour");

    // A user whose window started before keeps the whole limit of 4.
    for (let i = 0; i < 3; i++) await found(early);
    await refused(early);
    // One whose window started over budget gets a quarter of it (at least 2).
    await found(late);
    await refused(late);

    // A second instance on the same Redis prefix takes over: the counts hold, no new alert.
    const second = createApp(loadConfig(stack.env), captureLogs("info").logger);
    await second.start();
    await stack.app.stop();
    stack.app = second;
    const newcomer = user(6815);
    await found(newcomer);
    await found(newcomer);
    await refused(newcomer);
    await sleep(300);
    expect(alerts()).toHaveLength(1);
  });
});
