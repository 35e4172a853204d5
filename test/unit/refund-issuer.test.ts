// One issuer of refunds: a payment system's refund API (`refund`, and `refunded`, which finds out
// what a call whose answer was lost did) is called only by the refund desk (src/domain/refunds.ts),
// under its lease; and a refund is recorded done in the ledger only through the desk, which tells
// the buyer. The adapters implement the calls; nothing else in the product makes them.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = "src";
const DESK = "src/domain/refunds.ts";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Where `pattern` occurs in the product, outside the payment systems' own adapters. */
function callers(pattern: RegExp): string[] {
  return sources(SRC)
    .filter((path) => !path.startsWith(join(SRC, "adapters/payments/")))
    .filter((path) => pattern.test(readFileSync(path, "utf8")));
}

describe("one issuer of refunds", () => {
  it("only the refund desk calls a payment system's refund API or asks what a lost call did", () => {
    expect(callers(/\brefund\?\.(bind|call)\(|system\.refund(ed)?\??\.?\(/)).toEqual([DESK]);
  });

  it("only the refund desk records a refund done in the ledger", () => {
    expect(callers(/ledger\.markRefunded\(/)).toEqual([DESK]);
  });
});
