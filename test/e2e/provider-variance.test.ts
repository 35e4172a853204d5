// A provider that does not answer like the sandbox: other date forms, amounts with three
// decimals or as strings, a free bouquet, an unreadable date, forty long subscription names,
// refusals with codes nobody has seen. Each on both API versions, through the real bot.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { buttonsOf, expectReply } from "../support/chat.js";
import {
  type ListedBouquet as Bouquet,
  type Listing,
  rewriteListing as rewriteListingOf,
} from "../support/listing.js";
import { type Stack, startStack } from "../support/stack.js";

type Result = { result: Record<string, unknown> };

describe.each(["v1.0.1", "v1.0.0"] as const)(
  "a provider that speaks differently, on %s",
  (version) => {
    const priceField = version === "v1.0.1" ? "price" : "amt";
    let stack: Stack;
    let nextUser = version === "v1.0.1" ? 9300 : 9400;
    const newUser = () =>
      stack.emulator.user({ id: ++nextUser, first_name: "Va", language_code: "en" });

    beforeAll(async () => {
      stack = await startStack(`variance-${version}`, { PROVIDER_API_VERSION: version });
    });
    afterEach(() => stack.sandbox.reset());
    afterAll(() => stack.stop());

    const rewriteListing = (change: (body: Listing) => void) =>
      rewriteListingOf(stack.sandbox, change);
    const rewriteTransactions = (change: (result: Record<string, unknown>) => void) => {
      for (const operation of ["subscription-package-topup", "txn-status"] as const) {
        stack.sandbox.setFault(operation, {
          kind: "transform",
          transform: (response) => {
            change((response.body as Result).result);
            return response;
          },
        });
      }
    };
    const gold = (body: Listing) => body.tv.bouquets.find((b) => b.code === "TV-GOLD-M") as Bouquet;

    async function renewGold(user: ChatUser) {
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
      return expectReply(user, () => user.press(/Renew/), "Please confirm");
    }

    it("an ISO 8601 txnDate with an offset still gives a receipt with the date", async () => {
      rewriteTransactions((result) => {
        result.txnDate = "2026-11-22T08:19:00+05:45";
      });
      const user = newUser();
      await renewGold(user);
      const receipt = await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      expect(receipt.text).toContain("Date: 22 Nov 2026, 02:34");
    });

    it("an unreadable txnDate and a string amount: the receipt shows the date as sent", async () => {
      rewriteTransactions((result) => {
        result.txnDate = "22/11/2026 8:19 pm";
        result.amt = "700.00";
      });
      const user = newUser();
      await renewGold(user);
      const receipt = await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      expect(receipt.text).toContain("Date: 22/11/2026 8:19 pm");
      expect(receipt.text).toMatch(/Amount: NPR\s700\.00/);
    });

    it("one unreadable subscription date never blocks the listing", async () => {
      rewriteListing((body) => {
        const [first] = body.tv.subscriptions;
        if (first) first.enddate = "end of the month";
      });
      const user = newUser();
      // The customer's own contact: end dates are shown to it alone.
      await expectReply(user, () => user.sendText("/topup"), "Whose package");
      const menu = await expectReply(
        user,
        () => user.sendContact({ phone_number: "9841000001" }),
        "Choose a package",
      );
      expect(menu.text).toContain("• Gold – until end of the month");
    });

    it("a price of 12.345 is shown and charged as 12.345; a free bouquet is not offered", async () => {
      rewriteListing((body) => {
        gold(body)[priceField] = 12.345;
        const silver = body.tv.bouquets.find((b) => b.code === "TV-SILVER-M");
        if (silver) silver[priceField] = 0;
      });
      const user = newUser();
      const confirm = await renewGold(user);
      expect(confirm.text).toMatch(/Price: NPR\s12\.345/);
      expect(buttonsOf(user, confirm)).toContain("✅ Confirm and pay");
      // The sandbox's own price is 700, so it refuses; what matters is what was asked.
      await expectReply(user, () => user.press(/Confirm/), "declined");
      const asked = stack.sandbox.requests
        .filter((r) => r.operation === "subscription-package-topup")
        .map((r) => (r.body as { amt: unknown }).amt);
      expect(asked).toEqual(["12.345", "12.345"]);

      const other = newUser();
      await expectReply(other, () => other.sendText("/topup 1000001"), "Choose a package");
      const monthly = await expectReply(other, () => other.press("Monthly"), "Monthly packages");
      expect(buttonsOf(other, monthly).some((label) => label.startsWith("Silver ("))).toBe(false);
    });

    it("forty long subscription names still give a menu, with the rest counted", async () => {
      rewriteListing((body) => {
        const [first] = body.tv.subscriptions;
        body.tv.subscriptions = Array.from({ length: 40 }, (_, i) => ({
          ...first,
          code: `LONG-${i}`,
          name: `${"Very Long International Premium Channel Package ".repeat(4)}${i} (MONTHLY)`,
        }));
      });
      const user = newUser();
      const menu = await expectReply(
        user,
        () => user.sendText("/topup 1000001"),
        "Choose a package",
      );
      expect(menu.text).toContain("…and 30 more");
      expect(Array.from(menu.text ?? "").length).toBeLessThanOrEqual(4096);
    });

    it("forty-five connections: paged as bouquets are, the fortieth reached by taps", async () => {
      stack.sandbox.setFault("get-customer-information", {
        kind: "transform",
        transform: (response) => {
          const body = response.body as Record<string, Record<string, unknown>>;
          const lists = (version === "v1.0.1" ? body.customer?.connections : body.connection) as {
            tv: { stb: string; status: string }[];
          };
          // The sandbox knows only the fortieth, 8000000011.
          lists.tv = Array.from({ length: 45 }, (_, i) => ({
            stb: i === 39 ? "8000000011" : `70000000${String(i).padStart(2, "0")}`,
            status: "active",
          }));
          return response;
        },
      });
      const user = newUser();
      const choice = await expectReply(
        user,
        () => user.sendText("/topup 1000001"),
        "Which connection",
      );
      expect(choice.text).toContain("page 1 of 6");
      const connections = (labels: string[]) => labels.filter((label) => label.startsWith("TV"));
      expect(connections(buttonsOf(user, choice))).toHaveLength(8);
      expect(buttonsOf(user, choice)).toEqual(expect.arrayContaining(["‹ Prev", "1/6", "Next ›"]));
      const answered = () => stack.emulator.calls("answerCallbackQuery").length;
      const answeredBefore = answered();
      // Prev on the first page and the page indicator change nothing.
      user.press("‹ Prev");
      user.press("1/6");
      for (let page = 2; page <= 5; page++) {
        const shown = await expectReply(user, () => user.press("Next ›"), `page ${page} of 6`);
        expect(shown.message_id).toBe(choice.message_id);
      }
      const fifth = connections(buttonsOf(user));
      expect(fifth).toHaveLength(8);
      // The twelfth, 7000000011, ends the same even on half the id: the two are numbered.
      expect(fifth.at(-1)).toBe("TV ••••00011 #2 · active");
      await expectReply(user, () => user.press(/••••00011 #2/), "Choose a package");
      // The list, turned in place, now names the connection chosen, as its button did.
      const prompt = user.messages().find((m) => m.message_id === choice.message_id);
      expect(prompt?.text).toContain("••••00011 #2");
      // Every tap was answered, once: Prev, the indicator, four Nexts and the connection.
      expect(answered() - answeredBefore).toBe(7);
    });

    it.each([
      ["a code the sandbox never uses", { code: "ERR-7731", message: "Order token rejected" }],
      ["an empty code and message", { code: "", message: "" }],
      ["HTTP 400", { code: "E400", status: 400 }],
      ["HTTP 409", { code: "", status: 409 }],
      ["HTTP 422", { code: "AMT", status: 422 }],
    ])("a refusal with %s is checked and retried once with a fresh token", async (_, refusal) => {
      const user = newUser();
      await renewGold(user);
      stack.sandbox.setFault("subscription-package-topup", {
        kind: "reject",
        times: 1,
        ...refusal,
      });
      await expectReply(user, () => user.press(/Confirm/), "Top-up successful");
      const calls = stack.sandbox.requests.filter(
        (r) => r.operation === "subscription-package-topup",
      );
      expect(calls).toHaveLength(2);
      expect(stack.sandbox.topups).toHaveLength(1);
      expect(user.messages().some((m) => m.text?.includes("declined"))).toBe(false);
    });

    it.each([400, 404])(
      "an HTML page with HTTP %i is no refusal: checked with txn-status, never sent again",
      async (status) => {
        const user = newUser();
        await renewGold(user);
        stack.sandbox.setFault("subscription-package-topup", {
          kind: "reject",
          code: "",
          status,
          html: true,
          times: 1,
        });
        await expectReply(user, () => user.press(/Confirm/), "as soon as we know");
        const operations = stack.sandbox.requests.map((r) => r.operation);
        expect(operations.filter((op) => op === "subscription-package-topup")).toHaveLength(1);
        expect(operations.filter((op) => op === "txn-status").length).toBeGreaterThanOrEqual(2);
        expect(stack.sandbox.topups).toHaveLength(0);
      },
    );
  },
);
