import { describe, expect, it } from "vitest";
import type { PackageOffer } from "../../src/domain/model.js";
import {
  type Reminder,
  type ReminderChannel,
  ReminderSender,
  type ReminderStore,
} from "../../src/domain/reminders.js";
import { aReminder } from "../support/reminders.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const NOW = 1_000_000;

/** Due a moment ago; ends a day from now. */
const reminder = (id: string, user: number): Reminder => ({
  ...aReminder(id, user, NOW - 1),
  end: NOW + 86_400_000,
});

function fakeStore(due: Reminder[]) {
  const calls = { cancelAll: [] as number[], kept: [] as string[] };
  const store: ReminderStore = {
    add: async () => true,
    takeDue: async () => due.splice(0),
    nextDue: async () => null,
    ofUser: async () => [],
    cancel: async () => true,
    cancelAll: async (user) => void calls.cancelAll.push(user),
    keepSent: async (r) => void calls.kept.push(r.id),
    sent: async () => null,
    sentCount: async () => 0,
  };
  return { store, calls };
}

const listing = (endAt: number) =>
  ({
    subscriptions: [{ code: "TV-GOLD-M", name: "Gold", end: { at: endAt, text: "" } }],
  }) as unknown as PackageOffer;

async function run(due: Reminder[], endAt: number, channel: ReminderChannel) {
  const { store, calls } = fakeStore(due);
  const results: string[] = [];
  const sender = new ReminderSender(
    store,
    { getPackages: async () => listing(endAt) },
    channel,
    quiet,
    { pollMs: 60_000, onResult: (result) => results.push(result) },
    () => NOW,
  );
  sender.start();
  await sender.stop();
  return { calls, results };
}

describe("the reminder sender", () => {
  it("sends a due reminder once and keeps it for its Renew button", async () => {
    const sent: string[] = [];
    const { calls, results } = await run([reminder("a", 1)], NOW + 86_400_000, {
      send: async (r) => {
        sent.push(r.id);
        return "sent";
      },
    });
    expect(sent).toEqual(["a"]);
    expect(calls.kept).toEqual(["a"]);
    expect(results).toEqual(["sent"]);
  });

  it("skips a subscription the provider shows renewed", async () => {
    const { calls, results } = await run([reminder("b", 1)], NOW + 40 * 86_400_000, {
      send: async () => {
        throw new Error("must not be sent");
      },
    });
    expect(results).toEqual(["renewed"]);
    expect(calls.kept).toEqual([]);
  });

  it("drops every reminder of a user who blocked the bot, and does not try again", async () => {
    const { calls, results } = await run([reminder("c", 7)], NOW + 86_400_000, {
      send: async () => "blocked",
    });
    expect(results).toEqual(["blocked"]);
    expect(calls.cancelAll).toEqual([7]);
    expect(calls.kept).toEqual([]);
  });
});
