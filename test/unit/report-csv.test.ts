import { describe, expect, it } from "vitest";
import { reportCsv } from "../../src/bot/features/report/csv.js";
import type { ReportRow } from "../../src/domain/report.js";

const row = (overrides: Partial<ReportRow> = {}): ReportRow => ({
  id: "intent-1",
  at: Date.parse("2026-11-20T04:15:30Z"),
  buyer: 5,
  customerId: "1000001",
  service: "tv",
  connectionId: "8000000011",
  bouquetCode: "TV-GOLD-M",
  bouquetName: "Gold (MONTHLY)",
  amount: "700",
  checkoutId: "co1",
  txnId: "TXN1",
  reference: "tg5-ref1",
  outcome: "charged",
  payment: null,
  ...overrides,
});

async function* rowsOf(rows: ReportRow[]) {
  yield* rows;
}

async function csvOf(
  rows: ReportRow[] | AsyncIterable<ReportRow>,
  currency?: string,
  zone = "Asia/Kathmandu",
) {
  const chunks: Buffer[] = [];
  const source = Array.isArray(rows) ? rowsOf(rows) : rows;
  for await (const chunk of reportCsv(source, zone, currency)) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

const HEADER =
  "time,purchase_id,buyer_id,customer_id,service,connection,bouquet_code,bouquet_name,amount,currency,checkout_id,provider_txn_id,our_reference,outcome,payment_method,amount_paid,payment_charge_id,provider_charge_id,refund";

describe("the report's CSV", () => {
  it("has a BOM, a header and one CRLF line per purchase, times with the zone's offset", async () => {
    const csv = await csvOf(
      [row(), row({ id: "intent-2", txnId: null, outcome: "declined" })],
      "NPR",
    );
    expect(csv).toBe(
      `\uFEFF${HEADER}\r\n` +
        "2026-11-20T10:00:30+05:45,intent-1,5,1000001,tv,8000000011,TV-GOLD-M,Gold (MONTHLY),700,NPR,co1,TXN1,tg5-ref1,charged,,,,,\r\n" +
        "2026-11-20T10:00:30+05:45,intent-2,5,1000001,tv,8000000011,TV-GOLD-M,Gold (MONTHLY),700,NPR,co1,,tg5-ref1,declined,,,,,\r\n",
    );
  });

  it("ends each line with the purchase's payment, when it asked for one", async () => {
    const paid = { method: "telegram" as const, chargeId: "tg-charge-1", providerChargeId: "pi_1" };
    const csv = await csvOf(
      [
        row({ payment: { ...paid, paid: "700.00", refund: "none" } }),
        row({ outcome: "refund-due", payment: { ...paid, paid: "700.00", refund: "due" } }),
        row({
          outcome: "unpaid",
          payment: {
            method: "telegram",
            paid: null,
            chargeId: null,
            providerChargeId: null,
            refund: null,
          },
        }),
      ],
      "NPR",
    );
    expect(csv.split("\r\n").map((line) => line.split(",").slice(13).join(","))).toEqual([
      "outcome,payment_method,amount_paid,payment_charge_id,provider_charge_id,refund",
      "charged,telegram,700.00,tg-charge-1,pi_1,none",
      "refund-due,telegram,700.00,tg-charge-1,pi_1,due",
      "unpaid,telegram,,,,",
      "",
    ]);
  });

  it("follows the zone's offset across a change of clocks, milliseconds kept when there are any", async () => {
    // New York moved from -05:00 to -04:00 at 2026-03-08T07:00Z (2:00 local).
    const times = ["2026-03-08T06:59:59.250Z", "2026-03-08T07:00:00Z", "2026-03-08T07:14:59Z"];
    const csv = await csvOf(
      times.map((time) => row({ at: Date.parse(time) })),
      "USD",
      "America/New_York",
    );
    expect(
      csv
        .split("\r\n")
        .slice(1, 4)
        .map((line) => line.split(",")[0]),
    ).toEqual([
      "2026-03-08T01:59:59.250-05:00",
      "2026-03-08T03:00:00-04:00",
      "2026-03-08T03:14:59-04:00",
    ]);
  });

  it("comes in chunks of many lines, one header and one BOM for them all", async () => {
    const csv = await csvOf(Array.from({ length: 1_201 }, (_, i) => row({ id: `p${i}` })));
    const lines = csv.split("\r\n");
    expect(lines).toHaveLength(1_203);
    expect(lines.filter((line) => line.includes("purchase_id"))).toHaveLength(1);
    expect(csv.match(/\uFEFF/g)).toHaveLength(1);
    expect(lines[1_201]).toContain(",p1200,");
  });

  it("is only the header for an empty period", async () => {
    expect(await csvOf([])).toBe(`\uFEFF${HEADER}\r\n`);
  });

  it("quotes commas, quotes and line breaks (RFC 4180)", async () => {
    const csv = await csvOf([row({ bouquetName: 'Gold, "HD"\r\nplus', bouquetCode: "A;B" })]);
    expect(csv).toContain(',A;B,"Gold, ""HD""\r\nplus",700,,');
  });

  it("defuses what a spreadsheet would run as a formula", async () => {
    const csv = await csvOf([
      row({
        bouquetName: '=HYPERLINK("http://x")',
        bouquetCode: "+1",
        connectionId: "-2",
        customerId: "@SUM(A1)",
      }),
    ]);
    const line = csv.split("\r\n")[1] ?? "";
    expect(line).toContain(`,'@SUM(A1),tv,'-2,'+1,"'=HYPERLINK(""http://x"")",`);
  });

  it("ends with the error when the ledger fails half way", async () => {
    async function* failing() {
      yield row();
      throw new Error("the ledger's database is unavailable");
    }
    await expect(csvOf(failing())).rejects.toThrow("unavailable");
  });
});
