// The report's file: one line per purchase, RFC 4180 (quoted where needed, CRLF), with a BOM
// so that spreadsheets read non-Latin names as UTF-8. A cell that a spreadsheet would take for
// a formula (= + - @ first) gets a leading apostrophe. Written as the ledger's pages arrive, a
// few hundred lines per chunk (csv-stringify per line costs twice as much).
import { Readable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import { DateTime } from "luxon";
import type { ReportRow } from "../../../domain/report.js";

/**
 * Machine-readable column names, the same in every language. The payment's come last, so that
 * a sheet made for the columns before them still reads.
 */
const COLUMNS = [
  "time",
  "purchase_id",
  "buyer_id",
  "customer_id",
  "service",
  "connection",
  "bouquet_code",
  "bouquet_name",
  "amount",
  "currency",
  "checkout_id",
  "provider_txn_id",
  "our_reference",
  "outcome",
  "payment_method",
  "amount_paid",
  "payment_charge_id",
  "provider_charge_id",
  "refund",
];
const LINES_PER_CHUNK = 500;
const QUARTER_HOUR_MS = 900_000;

/**
 * ISO 8601 in the zone, with its offset ("2026-11-20T10:00:30+05:45"). Asking the zone for
 * every line would cost more than the rest of the line: its offset is asked once per quarter
 * of an hour, the finest step at which zones change offset.
 */
function isoTimes(zone: string): (at: number) => string {
  let quarter = Number.NaN;
  let offsetMs = 0;
  let suffix = "";
  return (at) => {
    if (Math.floor(at / QUARTER_HOUR_MS) !== quarter) {
      quarter = Math.floor(at / QUARTER_HOUR_MS);
      const local = DateTime.fromMillis(at, { zone });
      offsetMs = local.offset * 60_000;
      suffix = local.toFormat("ZZ");
    }
    const local = new Date(at + offsetMs).toISOString();
    return local.slice(0, at % 1000 === 0 ? 19 : 23) + suffix;
  };
}

async function* chunks(rows: AsyncIterable<ReportRow>, zone: string, currency: string) {
  const time = isoTimes(zone);
  let lines: string[][] = [];
  let first = true;
  const text = () => {
    const options = { columns: COLUMNS, header: first, bom: first };
    const chunk = stringify(lines, {
      ...options,
      record_delimiter: "windows",
      escape_formulas: true,
    });
    first = false;
    lines = [];
    return Buffer.from(chunk);
  };
  for await (const row of rows) {
    lines.push([
      time(row.at),
      row.id,
      String(row.buyer),
      row.customerId,
      row.service,
      row.connectionId,
      row.bouquetCode,
      row.bouquetName,
      row.amount,
      currency,
      row.checkoutId ?? "",
      row.txnId ?? "",
      row.reference ?? "",
      row.outcome,
      row.payment?.method ?? "",
      row.payment?.paid ?? "",
      row.payment?.chargeId ?? "",
      row.payment?.providerChargeId ?? "",
      row.payment?.refund ?? "",
    ]);
    if (lines.length === LINES_PER_CHUNK) yield text();
  }
  if (first || lines.length > 0) yield text();
}

/** The CSV as a stream; a failure reading the ledger ends it with that error. */
export function reportCsv(
  rows: AsyncIterable<ReportRow>,
  zone: string,
  currency: string | undefined,
): Readable {
  return Readable.from(chunks(rows, zone, currency ?? ""));
}
