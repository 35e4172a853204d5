// The phone number a subscriber shares as their own contact (issue #40: the shop lists its
// connections): only their own, sent as such, is kept; /forget forgets it and all that holds it
// for good; the shop's reads of its customer stay within LOOKUP_LIMIT; none of it is logged.
// Real bot, Telegram emulator, provider sandbox, Redis, PostgreSQL.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectReply } from "../support/chat.js";
import { appApi, initDataOf } from "../support/mini-app.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { type Stack, startShopStack } from "../support/stack.js";

let stack: Stack;
let base: string;
let redis: Redis;
let nextUser = 47_100;

beforeAll(async () => {
  ({ stack, base } = await startShopStack("shared_number_privacy", {
    // Finding 5's test makes some 55 calls in a few seconds: FLOOD_LIMIT is not what it checks.
    FLOOD_LIMIT: "200",
  }));
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(async () => {
  redis.disconnect();
  await stack.stop();
});

const api = (path: string, auth: string, body?: Record<string, unknown>) =>
  appApi(base, path, auth, body);

const contactOf = async (auth: string) => (await api("connections", auth)).body.contact;

/** Every value stored under the stack's prefix, as text, by key. */
async function storedValues(): Promise<Map<string, string>> {
  const prefix = stack.env.REDIS_KEY_PREFIX ?? "";
  const found = new Map<string, string>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let text = "";
      if (type === "string") text = (await redis.get(key)) ?? "";
      else if (type === "hash") text = JSON.stringify(await redis.hgetall(key));
      else if (type === "list") text = JSON.stringify(await redis.lrange(key, 0, -1));
      else if (type === "set") text = JSON.stringify(await redis.smembers(key));
      else if (type === "zset") text = JSON.stringify(await redis.zrange(key, 0, -1));
      found.set(key, text);
    }
  } while (cursor !== "0");
  return found;
}

const SITA = "9851000002";

describe("/forget forgets the shared number for good", () => {
  // Review of #40's shared number, finding 2.
  it("/forget, then /language while the chat asks which connection, does not keep the number again", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Lg",
      language_code: "en",
      phone_number: SITA,
    });
    const auth = initDataOf(user.id);
    // Shared (e.g. from the shop's requestContact): three connections, so the flow waits.
    await expectReply(user, () => user.sendContact(), "Which connection");
    expect(await contactOf(auth)).toBe("found");
    await expectReply(user, () => user.sendText("/forget"), "nor the phone number you shared");
    expect(await contactOf(auth)).toBe("none");
    // /forget ended the flow: changing the language does not start it again from the number.
    const seen = user.messages().length;
    await expectReply(user, () => user.sendText("/language"), "Choose your language");
    await expectReply(user, () => user.press("English"), "Language set to English");
    // A barrier: an update handled after the tap's.
    await expectReply(user, () => user.sendText("/start"), /./);
    const since = user.messages().slice(seen);
    expect(since.some((m) => m.text?.includes("Which connection"))).toBe(false);
    expect(await contactOf(auth)).toBe("none");
    const kept = await redis.get(`${stack.env.REDIS_KEY_PREFIX}shared-phone:${user.id}`);
    expect(kept).toBeNull();
  });

  // Review of #40's shared number, finding 3.
  it("after /forget, nothing in Redis holds the shared number or the customer it found", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Rd",
      language_code: "en",
      phone_number: "9801000003",
    });
    const auth = initDataOf(user.id);
    // One connection: the chat goes straight to the packages; the app lists the number's.
    await expectReply(user, () => user.sendContact(), "Choose a package");
    expect(await contactOf(auth)).toBe("found");
    await expectReply(user, () => user.sendText("/forget"), "nor the phone number you shared");
    const values = await storedValues();
    const holding = [...values]
      .map(([key, text]) => [key.slice((stack.env.REDIS_KEY_PREFIX ?? "").length), text])
      // The chat's menu under way (listing:<journey id>) is the journey's, not what /forget
      // promised: it is left out.
      .filter(([key]) => !/^listing:[0-9a-f]+$/.test(key ?? ""))
      .filter(([, text]) => text?.includes("9801000003") || text?.includes("Gurung"))
      .map(([key]) => key);
    // Neither draft:<chat>:-identified (the number as the flow's code) nor
    // listing:app-contact-<user> (the customer's whole record) is left.
    expect(holding).toEqual([]);
  });
});

describe("a contact proves the number is the sender's now", () => {
  // Review of #40's shared number, finding 4.
  it("a forwarded contact card, even the sender's own old one, is not taken as their number", async () => {
    // A card the user shared once (before changing their Telegram number, say: the old number
    // may since belong to someone else). Forwarding it proves nothing about the number today.
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Old",
      language_code: "en",
      phone_number: "9861000004",
    });
    const card = user.sendContact();
    await user.waitForText("Which connection");
    await expectReply(user, () => user.sendText("/forget"), "nor the phone number you shared");
    await expectReply(user, () => user.forward(card), "your own phone number");
    expect(await contactOf(initDataOf(user.id))).toBe("none");
  });
});

describe("the app's provider reads stay within LOOKUP_LIMIT", () => {
  // Review of #40's shared number, finding 5.
  it("opening the shop reuses the number's customer; once the user is limited, the provider is asked nothing for it", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Am",
      language_code: "en",
      phone_number: SITA,
    });
    const auth = initDataOf(user.id);
    const count = (...operations: string[]) =>
      stack.sandbox.requests.filter((r) => operations.includes(r.operation)).length;
    const lookups = () => count("get-customer-information");
    const reads = () => count("get-customer-information", "get-subscription-package");
    // The chat's lookup of the number: the first of the user's 20, kept for the shop.
    await expectReply(user, () => user.sendContact(), "Which connection");
    const before = lookups();
    const { connections } = (await api("connections", auth)).body as {
      connections: { ref: string }[];
    };
    const refs = connections.map((c) => c.ref);
    expect(refs).toHaveLength(3);
    const answers: unknown[] = [];
    for (let call = 0; call < 24; call++) answers.push(await contactOf(auth));
    expect(answers).toEqual(Array(24).fill("found"));
    expect(lookups()).toBe(before);
    // Opening the shop did not use the chat's lookups up.
    await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
    // Used up by codes (the 19th of them is refused)...
    const statuses: number[] = [];
    for (let call = 0; call < 19; call++) {
      statuses.push((await api("lookup", auth, { code: "1000001" })).status);
    }
    expect(statuses).toEqual([...Array(18).fill(200), 429]);
    // ...the kept customer is read no more: as the chat says, limited.
    const limitedAt = reads();
    expect(await contactOf(auth)).toBe("lookup-limited");
    const opened: unknown[] = [];
    for (let call = 0; call < 8; call++) {
      opened.push((await api("catalogue", auth, { ref: refs[call % 3] })).body.error);
    }
    expect(opened).toEqual(Array(8).fill("lookup-limited"));
    expect(reads() - limitedAt).toBe(0);
    await expectReply(user, () => user.sendText("/topup 1000001"), "Too many attempts");
  });
});

describe("personal data stays out of the logs", () => {
  // Review of #40's shared number: held (a regression guard).
  it("a shared number, its customer's name and its connection ids are in no log line", async () => {
    const user = stack.emulator.user({
      id: ++nextUser,
      first_name: "Lo",
      language_code: "en",
      phone_number: "9811000005",
    });
    const auth = initDataOf(user.id);
    await expectReply(user, () => user.sendContact(), "Which connection");
    const { connections } = (await api("connections", auth)).body as {
      connections: { ref: string }[];
    };
    const [first, second] = connections.map((c) => c.ref);
    expect((await api("catalogue", auth, { ref: second })).status).toBe(200);
    await expectReply(user, () => user.sendText("/forget"), "nor the phone number you shared");
    expect((await api("catalogue", auth, { ref: first })).status).toBe(404);
    const leaking = stack
      .logs()
      .filter((line) => /9811000005|Bikash|bikash\.rai|bikash\.iptv/.test(line));
    expect(leaking).toEqual([]);
  });
});

describe("a contact kept for nobody else", () => {
  // Review of #40's shared number: held (a regression guard).
  it("a contact in a group (a member's own, an anonymous admin's) is looked up and kept for nobody", async () => {
    const lookups = () =>
      stack.sandbox.requests.filter((r) => r.operation === "get-customer-information").length;
    const before = lookups();
    const group = stack.emulator.group({ id: -100_471_000, title: "Staff", type: "supergroup" });
    const member = group.member({
      id: ++nextUser,
      first_name: "Gm",
      language_code: "en",
      phone_number: SITA,
    });
    member.sendContact();
    group.anonymousAdmin().sendContact({ phone_number: SITA });
    // A barrier: a private update handled after the group's.
    const other = stack.emulator.user({ id: ++nextUser, first_name: "Bar", language_code: "en" });
    await expectReply(other, () => other.sendText("/start"), /./);
    expect(lookups()).toBe(before);
    expect(await contactOf(initDataOf(member.id))).toBe("none");
    expect(await contactOf(initDataOf(1_087_968_824))).toBe("none");
  });

  // Review of #40's shared number: held (a regression guard).
  it("a contact with another user's user_id is refused and not kept", async () => {
    const user = stack.emulator.user({ id: ++nextUser, first_name: "Sp", language_code: "en" });
    await expectReply(
      user,
      () => user.sendContact({ phone_number: SITA, user_id: user.id + 1 }),
      "your own phone number",
    );
    // (A contact without user_id: the emulator always fills one in; identify.ts refuses it.)
    expect(await contactOf(initDataOf(user.id))).toBe("none");
  });
});
