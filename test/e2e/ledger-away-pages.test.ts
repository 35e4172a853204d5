// The ledger away while a buyer holds an eSewa link: "I have paid" and the payment pages say
// "we could not check", never "not known" (a buyer who paid must not be invited to pay again),
// and the payment made meanwhile is topped up once the ledger is back. A PostgreSQL server of
// the test's own, killed and started by PID.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EsewaGateways, startEsewaGateways } from "../support/esewa-gateways.js";
import { type OwnPostgres, startOwnPostgres } from "../support/postgres-server.js";

let postgres: OwnPostgres;
let gw: EsewaGateways;

beforeAll(async () => {
  postgres = await startOwnPostgres();
  gw = await startEsewaGateways("ledger_away_pages", {
    DATABASE_URL: postgres.url,
    DATABASE_STATEMENT_TIMEOUT_MS: "1000",
    RETURN_PAGE_LOOKUP_MS: "200",
  });
}, 40_000);
afterAll(async () => {
  await gw?.stop();
  await postgres?.stop();
});

describe("the ledger away while a buyer holds a payment link", () => {
  it('answers "could not check" in the chat and on the pages, then tops up what was paid', async () => {
    const { user, link, payUrl, uuid } = await gw.withLink(9701);
    const page = await gw.openPayPage(payUrl);
    expect(page.status).toBe(200);
    await gw.submit(page);
    gw.esewa.pay(uuid);
    // The buyer paid on eSewa; now the ledger goes away.
    await postgres.kill();

    const answer = user.waitForCallbackAnswer({ timeoutMs: 10_000 });
    user.press("✅ I have paid", { messageId: link.message_id });
    const said = (await answer).text ?? "";
    expect(said).toMatch(/could not reach|keep checking/);
    expect(said).not.toMatch(/not known/);

    for (const address of [payUrl, `${gw.base}/pay/esewa/failure/${uuid}`]) {
      const response = await fetch(address);
      const html = await response.text();
      expect(response.status, address).toBe(503);
      expect(html).toMatch(/could not check your payment/);
      expect(html).not.toMatch(/not known|Nothing was charged/);
    }

    // Back: the payment eSewa holds is found and topped up, once.
    const receipt = user.waitForText("Top-up successful", { timeoutMs: 30_000 });
    await postgres.start();
    await receipt;
    expect(gw.stack.sandbox.topups).toHaveLength(1);
  }, 60_000);
});
