import { describe, expect, it } from "vitest";
import type { ProviderPort } from "../../src/domain/ports.js";
import {
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from "../../src/domain/provider-errors.js";
import {
  type AlertLedger,
  type ProviderAlert,
  ProviderHealth,
} from "../../src/domain/provider-health.js";
import { captureLogs } from "../support/log-capture.js";

type Behaviour = "ok" | "down" | "refused-token" | "not-found";

/** A provider whose answers the test sets, a clock it moves, alerts it reads. */
function setup(ledger?: AlertLedger) {
  let behaviour: Behaviour = "ok";
  let calls = 0;
  let now = 0;
  const alerts: string[] = [];
  const inner = {
    async getCustomer() {
      calls++;
      if (behaviour === "down") throw new ProviderUnavailableError("get-customer-information", "x");
      if (behaviour === "refused-token") {
        throw new ProviderUnauthorizedError("get-customer-information", 401);
      }
      if (behaviour === "not-found") {
        throw new ProviderRejectedError("get-customer-information", "E", undefined, 200);
      }
      return { customer: { cuid: "1", firstName: "", lastName: "", status: "" }, connections: [] };
    },
  } as unknown as ProviderPort;
  const claims = new Map<string, number>();
  let outage = false;
  const sharedLedger: AlertLedger = ledger ?? {
    async claim(kind, ttlMs) {
      if ((claims.get(kind) ?? -1) > now) return false;
      claims.set(kind, now + ttlMs);
      outage = true;
      return true;
    },
    async endOutage() {
      const ended = outage;
      outage = false;
      claims.clear();
      return ended;
    },
  };
  const health = new ProviderHealth(
    inner,
    { send: async (alert: ProviderAlert) => void alerts.push(alert.kind) },
    sharedLedger,
    { failuresToOpen: 3, probeAfterMs: 1_000, alertRepeatMs: 60_000 },
    captureLogs().logger,
    () => now,
  );
  const call = () =>
    health.getCustomer("1").then(
      () => "ok",
      (error: Error) => error.constructor.name,
    );
  return {
    health,
    alerts,
    call,
    set(next: Behaviour) {
      behaviour = next;
    },
    advance(ms: number) {
      now += ms;
    },
    calls: () => calls,
  };
}

describe("the provider's health", () => {
  it("opens after consecutive failures: calls fail at once, one probe tests recovery", async () => {
    const p = setup();
    p.set("down");
    for (let i = 0; i < 3; i++) expect(await p.call()).toBe("ProviderUnavailableError");
    expect(p.health.state).toBe("down");
    expect(p.alerts).toEqual(["down"]);
    expect(await p.call()).toBe("ProviderUnavailableError");
    expect(p.calls()).toBe(3);
    p.advance(1_000);
    p.set("ok");
    const [probe, meanwhile] = await Promise.all([p.call(), p.call()]);
    expect([probe, meanwhile]).toEqual(["ok", "ProviderUnavailableError"]);
    expect(p.calls()).toBe(4);
    expect(p.health.state).toBe("closed");
    expect(p.alerts).toEqual(["down", "recovered"]);
  });

  it("counts refusals as answers, and only failures in a row", async () => {
    const p = setup();
    for (const behaviour of ["down", "down", "not-found", "down", "down"] as const) {
      p.set(behaviour);
      await p.call();
    }
    expect(p.health.state).toBe("closed");
    expect(p.alerts).toEqual([]);
  });

  it("pauses at once when our token is refused, and says paused while it is", async () => {
    const p = setup();
    p.set("refused-token");
    expect(await p.call()).toBe("ProviderUnauthorizedError");
    expect(p.health.state).toBe("token-refused");
    expect(await p.call()).toBe("ProviderUnauthorizedError");
    expect(p.calls()).toBe(1);
    expect(p.alerts).toEqual(["token-refused"]);
  });

  it("repeats an alert at most every repeat interval while the outage lasts", async () => {
    const p = setup();
    p.set("down");
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 20; i++) {
        p.advance(3_000);
        await p.call();
      }
    }
    // Three minutes of failures (a probe every 3 s), a 60 s repeat: three alerts.
    expect(p.alerts).toEqual(["down", "down", "down"]);
  });

  it("without the shared ledger, still alerts once and says recovered", async () => {
    const broken: AlertLedger = {
      claim: () => Promise.reject(new Error("Redis down")),
      endOutage: () => Promise.reject(new Error("Redis down")),
    };
    const p = setup(broken);
    p.set("refused-token");
    await p.call();
    p.advance(1_000);
    await p.call();
    p.advance(1_000);
    p.set("ok");
    expect(await p.call()).toBe("ok");
    expect(p.alerts).toEqual(["token-refused", "recovered"]);
  });
});
