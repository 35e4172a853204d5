// The purchase's state machine: each event moves a purchase only along its declared row, paid
// money is never "not charged" and unpaid money is never owed back, nothing leaves a final
// phase, and the diagram in docs/architecture.md is the declaration's own.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PURCHASE_PHASES, type Purchase, type PurchasePhase } from "../../src/domain/purchase.js";
import {
  advance,
  ForbiddenTransitionError,
  OUTCOMES,
  outcomeOf,
  type PurchaseEvent,
  phaseChanges,
  stateDiagram,
  TRANSITIONS,
  transitionFor,
} from "../../src/domain/purchase-machine.js";
import { purchaseOf } from "../support/purchases.js";

const PHASES = PURCHASE_PHASES;

const charge = { id: "c1", providerId: null, at: 1 };
const EVENTS: PurchaseEvent[] = [
  { type: "pay", charge },
  { type: "pay-late", charge },
  { type: "end-unpaid", reason: "expired" },
  { type: "take-token", checkout: { id: "co9", issuedAt: 9 }, reference: "r9", attempt: 2 },
  { type: "send" },
  { type: "find", transaction: { txnId: "T9", amount: "700", date: null } },
  { type: "refuse", reason: "declined" },
  { type: "lose-track" },
  { type: "retry-later", reason: "unavailable" },
  { type: "owe", reason: "offer-changed" },
  { type: "refund" },
];

/** A purchase in this phase, paid in the bot or not. */
function inPhase(phase: PurchasePhase, paid: boolean): Purchase {
  return purchaseOf({
    phase,
    reason: "paused",
    transaction: null,
    payment: {
      method: "telegram",
      currency: "NPR",
      minor: 70000,
      expiresAt: 0,
      ...(paid && { charge }),
    },
  });
}

describe("the purchase's state machine", () => {
  it("applies every declared transition, setting what it declares, and refuses the rest", () => {
    let applied = 0;
    for (const phase of PHASES) {
      for (const paid of [false, true]) {
        for (const event of EVENTS) {
          const purchase = inPhase(phase, paid);
          const allowed = TRANSITIONS.find(
            (t) =>
              t.event === event.type &&
              t.from.includes(phase) &&
              (t.paid === undefined || t.paid === paid),
          );
          if (!allowed) {
            expect(() => advance(purchase, event, 5)).toThrow(ForbiddenTransitionError);
            expect(purchase.phase).toBe(phase);
            continue;
          }
          advance(purchase, event, 5);
          applied++;
          expect(purchase.phase).toBe(allowed.to);
          expect(purchase.updatedAt).toBe(5);
          if (event.type === "find") expect(purchase.transaction?.txnId).toBe("T9");
          if (event.type === "take-token") {
            expect(purchase).toMatchObject({
              checkout: { id: "co9" },
              reference: "r9",
              attempt: 2,
            });
          }
          if ("reason" in event) expect(purchase.reason).toBe(event.reason);
          if (event.type === "pay" || event.type === "pay-late") {
            expect(purchase.payment?.charge).toEqual(charge);
            expect(purchase.reason).toBeNull();
          }
        }
      }
    }
    expect(applied).toBeGreaterThan(30);
  });

  it("never leaves a final phase, never says paid money was not charged, never owes unpaid money", () => {
    for (const final of ["charged", "not-charged", "unpaid", "refunded"] as const) {
      for (const event of EVENTS) {
        // Unpaid is left only by a payment found on one of its offers after it ended.
        const late = final === "unpaid" && event.type === "pay-late";
        expect(transitionFor(inPhase(final, true), event.type)).toBeNull();
        expect(transitionFor(inPhase(final, false), event.type) !== null).toBe(late);
      }
    }
    expect(phaseChanges().filter(([from]) => from === "unpaid")).toEqual([["unpaid", "paid"]]);
    for (const phase of PHASES) {
      expect(transitionFor(inPhase(phase, true), "refuse")).toBeNull();
      expect(transitionFor(inPhase(phase, false), "owe")).toBeNull();
      expect(transitionFor(inPhase(phase, false), "retry-later")).toBeNull();
    }
    // A refund due goes only to refunded, or to charged when the top-up turns up after all.
    expect(phaseChanges().filter(([from]) => from === "refund-due")).toEqual([
      ["refund-due", "charged"],
      ["refund-due", "refunded"],
    ]);
  });

  it("gives every phase one outcome for buyers, support and finance", () => {
    for (const phase of PHASES) expect(OUTCOMES).toContain(outcomeOf({ phase, reason: null }));
    expect(outcomeOf({ phase: "not-charged", reason: "declined" })).toBe("declined");
    expect(outcomeOf({ phase: "not-charged", reason: "verified" })).toBe("not-charged");
    expect(outcomeOf({ phase: "requested", reason: null })).toBe("unknown");
    expect(outcomeOf({ phase: "paid", reason: null })).toBe("pending");
  });

  it("is drawn in docs/architecture.md exactly as declared", () => {
    const doc = readFileSync(new URL("../../docs/architecture.md", import.meta.url), "utf8");
    const drawn = /```mermaid\n(stateDiagram-v2\n[\s\S]*?)\n```/.exec(doc)?.[1];
    expect(drawn).toBe(stateDiagram());
  });
});
