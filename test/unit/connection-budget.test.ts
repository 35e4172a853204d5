import { describe, expect, it } from "vitest";
import { ConnectionBudget } from "../../src/adapters/http/connections.js";

/** A connection that notes its closing, as a socket would by its "close" event. */
function connections(budget: ConnectionBudget<{ destroy(): void; name: string }>) {
  const destroyed: string[] = [];
  const open = (name: string, client = "10.0.0.1") => {
    const connection = {
      name,
      destroy: () => {
        destroyed.push(name);
      },
    };
    return { connection, admitted: budget.admit(connection, client) };
  };
  return { open, destroyed };
}

describe("ConnectionBudget", () => {
  it("at the cap closes the least recently active idle connection, never a busy one", () => {
    const budget = new ConnectionBudget<{ destroy(): void; name: string }>({ total: 3 });
    const { open, destroyed } = connections(budget);
    const a = open("a").connection;
    const b = open("b").connection;
    open("c");
    // a busy; b answered a request after c was opened: c is now the least recently active.
    budget.requestStarted(a);
    budget.requestStarted(b);
    budget.requestEnded(b);
    expect(open("d").admitted).toBe(true);
    expect(destroyed).toEqual(["c"]);
    expect(budget.size).toBe(3);
    budget.requestStarted(b);
    expect(open("e").admitted).toBe(true);
    expect(destroyed).toEqual(["c", "d"]);
    // a, b and e busy: nothing can make room.
    budget.requestStarted(open("f").connection);
    expect(destroyed).toEqual(["c", "d", "e"]);
    expect(open("g").admitted).toBe(false);
    expect(budget.size).toBe(3);
  });

  it("counts a client's connections apart, busy ones only for a refusal", () => {
    const budget = new ConnectionBudget<{ destroy(): void; name: string }>({
      total: 100,
      perClient: 2,
    });
    const { open, destroyed } = connections(budget);
    const a = open("a", "1.1.1.1").connection;
    open("b", "1.1.1.1");
    open("x", "2.2.2.2");
    budget.requestStarted(a);
    expect(open("c", "1.1.1.1").admitted).toBe(true);
    expect(destroyed).toEqual(["b"]);
    budget.requestStarted(open("d", "1.1.1.1").connection);
    expect(destroyed).toEqual(["b", "c"]);
    // Both of 1.1.1.1's are busy: refused; another address is not affected.
    expect(open("e", "1.1.1.1").admitted).toBe(false);
    expect(open("y", "2.2.2.2").admitted).toBe(true);
    expect(destroyed).toEqual(["b", "c"]);
    // A closed connection frees its place.
    budget.closed(a);
    expect(open("f", "1.1.1.1").admitted).toBe(true);
  });

  it("keeps a connection busy while any of its requests is being answered", () => {
    const budget = new ConnectionBudget<{ destroy(): void; name: string }>({ total: 1 });
    const { open, destroyed } = connections(budget);
    const a = open("a").connection;
    budget.requestStarted(a);
    budget.requestStarted(a);
    budget.requestEnded(a);
    expect(open("b").admitted).toBe(false);
    budget.requestEnded(a);
    expect(open("c").admitted).toBe(true);
    expect(destroyed).toEqual(["a"]);
  });
});
