// What follows an outcome does not wait for its buyer to be told (issue 36's review, finding 10):
// a refund owed starts at the purchase's first telling whether or not the message goes out, and
// a buyer who can never be messaged (blocked the bot, deleted the account) is told no more.
import { describe, expect, it } from "vitest";
import { BuyerUnreachableError, OutcomeTeller } from "../../src/domain/outcomes.js";
import { type Purchase, StaleWriteError } from "../../src/domain/purchase.js";

const log = { info() {}, warn() {}, error() {}, debug() {} };

const owedPurchase = {
  id: "p1",
  version: 5,
  buyer: 7,
  language: "en",
  phase: "refund-due",
  told: null,
  reason: "declined",
  payment: {
    method: "khalti",
    currency: "NPR",
    minor: 100_000,
    expiresAt: 0,
    charge: { id: "pidx", providerId: "t", at: 0 },
  },
} as unknown as Purchase;

function tellerFailingWith(failure: () => Error) {
  const written: Purchase[] = [];
  const book = {
    record: async (purchase: Purchase) => void written.push({ ...purchase }),
    store: { holdToTell: async () => "elsewhere" },
  };
  const channel = {
    tries: 0,
    async tell() {
      channel.tries++;
      throw failure();
    },
  };
  const teller = new OutcomeTeller(book as never, channel, log);
  const events: string[] = [];
  teller.whenReached("refund-due", (purchase) => void events.push(`reached ${purchase.id}`));
  teller.whenTold("refund-due", (purchase) => void events.push(`told ${purchase.id}`));
  teller.whenUnreachable((purchase) => void events.push(`unreachable ${purchase.id}`));
  return { teller, channel, written, events };
}

describe("a refund owed starts whether or not its buyer can be told", () => {
  it("Telegram failing: the refund starts once, at the first telling; the outcome is told later", async () => {
    const { teller, channel, written, events } = tellerFailingWith(() => new Error("Bad Gateway"));
    // The reconciliation's passes: each tries to tell again.
    for (let pass = 0; pass < 3; pass++) {
      expect(await teller.tell(structuredClone(owedPurchase))).toBe(false);
    }
    expect(channel.tries).toBe(3);
    expect(events).toEqual(["reached p1"]);
    expect(written).toEqual([]);
  });

  it("the buyer blocked the bot: the refund starts, the outcome is marked told, operators hear of it", async () => {
    const { teller, channel, written, events } = tellerFailingWith(
      () => new BuyerUnreachableError("Forbidden: bot was blocked by the user"),
    );
    const purchase = structuredClone(owedPurchase);
    expect(await teller.tell(purchase)).toBe(true);
    expect(written.map((row) => row.told)).toEqual(["refund-due"]);
    expect(events).toEqual(["reached p1", "unreachable p1", "told p1"]);
    // Told (as far as it ever can be): nobody tries again.
    expect(await teller.tell(purchase)).toBe(true);
    expect(channel.tries).toBe(1);
    expect(events).toHaveLength(3);
  });

  it("delivered: the buyer hears of the refund first, then it starts, once", async () => {
    const order: string[] = [];
    const book = { record: async () => undefined, store: { holdToTell: async () => "elsewhere" } };
    const teller = new OutcomeTeller(
      book as never,
      { tell: async () => void order.push("message") },
      log,
    );
    teller.whenReached("refund-due", () => void order.push("refund"));
    expect(await teller.tell(structuredClone(owedPurchase))).toBe(true);
    expect(order).toEqual(["message", "refund"]);
  });

  it("a start that failed is tried again at the next telling", async () => {
    const book = { record: async () => undefined, store: { holdToTell: async () => "elsewhere" } };
    const channel = {
      async tell() {
        throw new Error("Bad Gateway");
      },
    };
    const teller = new OutcomeTeller(book as never, channel, log);
    let calls = 0;
    teller.whenReached("refund-due", () => {
      calls++;
      if (calls === 1) throw new Error("ledger away");
    });
    await teller.tell(structuredClone(owedPurchase));
    await teller.tell(structuredClone(owedPurchase));
    await teller.tell(structuredClone(owedPurchase));
    expect(calls).toBe(2);
  });
});

describe("an outcome is told once, whoever learns it", () => {
  /** A teller whose ledger answers `hold` to its asking to hold the purchase. */
  function tellerHolding(hold: "told" | "held" | "elsewhere" | "lease" | "fails") {
    const seen = { messages: 0, released: 0, asked: 0 };
    const store = {
      async holdToTell() {
        seen.asked++;
        if (hold === "fails") throw new Error("ledger away");
        if (hold !== "lease") return hold;
        return { release: async () => void seen.released++ };
      },
    };
    const book = { record: async () => undefined, store };
    const teller = new OutcomeTeller(
      book as never,
      { tell: async () => void seen.messages++ },
      log,
    );
    return { teller, seen };
  }

  it("held for the telling when free, and given back after", async () => {
    const { teller, seen } = tellerHolding("lease");
    expect(await teller.tell(structuredClone(owedPurchase))).toBe(true);
    expect(seen).toEqual({ messages: 1, released: 1, asked: 1 });
  });

  it("held by another (a reconciliation pass telling it): left to them, not told twice", async () => {
    const { teller, seen } = tellerHolding("held");
    expect(await teller.tell(structuredClone(owedPurchase))).toBe(true);
    expect(seen.messages).toBe(0);
  });

  it("told at this phase already: not again", async () => {
    const { teller, seen } = tellerHolding("told");
    await teller.tell(structuredClone(owedPurchase));
    expect(seen.messages).toBe(0);
  });

  it("the ledger away, or this phase not written yet: told all the same", async () => {
    for (const hold of ["fails", "elsewhere"] as const) {
      const { teller, seen } = tellerHolding(hold);
      expect(await teller.tell(structuredClone(owedPurchase))).toBe(true);
      expect(seen.messages).toBe(1);
    }
  });

  it("a caller that holds the purchase says so: told without asking", async () => {
    const { teller, seen } = tellerHolding("held");
    expect(await teller.tell(structuredClone(owedPurchase), true)).toBe(true);
    expect(seen).toMatchObject({ messages: 1, asked: 0 });
  });

  it("its holder finds it moved on when marking it told: the newer phase is told too, by the holder", async () => {
    const told: string[] = [];
    const refunded = { ...structuredClone(owedPurchase), phase: "refunded", version: 6 };
    let writes = 0;
    const book = {
      async record(purchase: Purchase) {
        // The first "told" write finds the ledger moved on (refunded by someone who saw the
        // purchase held, and left it to its holder).
        if (writes++ === 0) throw new StaleWriteError(purchase.id);
      },
      store: { get: async () => structuredClone(refunded) },
    };
    const teller = new OutcomeTeller(
      book as never,
      { tell: async (purchase) => void told.push(purchase.phase) },
      log,
    );
    expect(await teller.tell(structuredClone(owedPurchase), true)).toBe(true);
    expect(told).toEqual(["refund-due", "refunded"]);
  });

  it("one that does not hold it leaves a newer phase to its holder", async () => {
    const told: string[] = [];
    const book = {
      record: async (purchase: Purchase) => {
        throw new StaleWriteError(purchase.id);
      },
      store: {
        holdToTell: async () => "elsewhere",
        get: async () => ({ ...structuredClone(owedPurchase), phase: "refunded" }),
      },
    };
    const teller = new OutcomeTeller(
      book as never,
      { tell: async (purchase) => void told.push(purchase.phase) },
      log,
    );
    await teller.tell(structuredClone(owedPurchase));
    expect(told).toEqual(["refund-due"]);
  });
});
