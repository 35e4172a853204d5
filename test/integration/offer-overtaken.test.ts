// Review of #39, finding 6: a purchase switched to another method (or cancelled) while its QR
// was being requested. The QR that comes back late is withdrawn at once (never left live with
// its buttons), the buyer is not told "could not be prepared", and the offer stays in the
// ledger (watched: a payment on it is still found). Over the real ledger (PGlite).
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LedgerPurchases } from "../../src/adapters/ledger/purchase-store.js";
import { OutcomeTeller } from "../../src/domain/outcomes.js";
import type { PaymentJournal, PaymentOffer, PaymentSystem } from "../../src/domain/payment.js";
import { PaymentService } from "../../src/domain/payment-service.js";
import type { PaymentMethod, Purchase } from "../../src/domain/purchase.js";
import { PurchaseBook } from "../../src/domain/purchase-book.js";
import type { PurchaseIntent, TopupService } from "../../src/domain/topup.js";
import { testLedger } from "../support/ledger-fixture.js";
import { captureLogs } from "../support/log-capture.js";
import {
  awaitingPurchaseOf,
  quietAlarm,
  quietRefundDesk,
  TEST_PAYMENT_SETTINGS,
} from "../support/purchases.js";

const ledger = testLedger("PGlite", "offer_overtaken");
const { logger } = captureLogs();
let store: LedgerPurchases;
let payments: PaymentService;
const withdrawn: { method: PaymentMethod; message: string | undefined }[] = [];
/** Held between the QR's record and its answer: what the buyer does meanwhile. */
let meanwhile: () => Promise<void> = async () => undefined;

function system(method: PaymentMethod, handle: () => string, message: string): PaymentSystem {
  return {
    method,
    async offer(_purchase, record): Promise<PaymentOffer> {
      const made = handle();
      await record(made, Date.now() + 120_000);
      await meanwhile();
      return { handle: made, message };
    },
    async withdraw(purchase: Purchase) {
      withdrawn.push({ method, message: purchase.statusMessage });
    },
    lookup: async () => ({ state: "waiting", pending: false }),
  } as PaymentSystem;
}

let prns = 0;
beforeAll(() => {
  store = new LedgerPurchases(ledger.connection, "overtaken");
  const book = new PurchaseBook(store, logger);
  const teller = new OutcomeTeller(book, { tell: async () => undefined }, logger);
  const refunds = quietRefundDesk(book, store, teller, logger);
  const topups = {
    newPurchase: (intent: PurchaseIntent) =>
      awaitingPurchaseOf({ id: intent.intentId, buyer: intent.buyer, phase: "created" }),
  } as unknown as TopupService;
  payments = new PaymentService(
    book,
    store,
    {} as PaymentJournal,
    topups,
    teller,
    new Map<PaymentMethod, PaymentSystem>([
      ["fonepay", system("fonepay", () => `prn-${++prns}`, "qr-photo")],
      ["khalti", system("khalti", () => `pidx-${++prns}`, "khalti-link")],
    ]),
    refunds,
    quietAlarm,
    () => true,
    TEST_PAYMENT_SETTINGS,
    logger,
  );
});
afterEach(async () => {
  meanwhile = async () => undefined;
  withdrawn.length = 0;
  await ledger.empty();
});

const intent = (id: string): PurchaseIntent =>
  ({
    intentId: id,
    buyer: 7,
    language: "en",
    customer: { cuid: "1000001", firstName: "Ram", lastName: "Thapa" },
    connection: { service: "tv", id: "8000000011" },
    bouquet: { code: "TV-GOLD-M", name: "Gold (MONTHLY)", price: "700" },
    checkout: { id: "co1", issuedAt: Date.now() },
  }) as unknown as PurchaseIntent;

describe("an offer overtaken while it is being made", () => {
  it("a switch while the QR is requested: the late QR is withdrawn, nothing said to be unavailable", async () => {
    const asked = intent("over-1");
    let switched: Awaited<ReturnType<PaymentService["open"]>> | undefined;
    meanwhile = async () => {
      meanwhile = async () => undefined;
      switched = await payments.open(asked, "khalti");
    };
    const first = await payments.open(asked, "fonepay");
    expect(switched?.kind).toBe("offered");
    // Not "unavailable" ("could not be prepared… nothing was charged"): the switch told the buyer.
    expect(first.kind).toBe("duplicate");
    // The QR that went out late is withdrawn by its own message.
    expect(withdrawn).toContainEqual({ method: "fonepay", message: "qr-photo" });
    const now = await store.get("over-1");
    expect(now).toMatchObject({
      phase: "awaiting-payment",
      payment: { method: "khalti", offer: expect.stringMatching(/^pidx-/) },
      statusMessage: "khalti-link",
    });
  });

  it("a write meanwhile that leaves this offer current: the QR stays, its message written", async () => {
    const asked = intent("over-2");
    meanwhile = async () => {
      const read = await store.get("over-2");
      if (!read) throw new Error("not recorded");
      await store.save(read);
    };
    const opened = await payments.open(asked, "fonepay");
    expect(opened.kind).toBe("offered");
    expect(withdrawn).toEqual([]);
    expect(await store.get("over-2")).toMatchObject({ statusMessage: "qr-photo" });
  });
});
