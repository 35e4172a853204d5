// The scan of every log line a test run recorded (log-record.ts): no secret the bots were
// given, no test customer's phone number or name, no Telegram user's personal field. The
// report names the kind and the file:line, never the value found.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { secretForms } from "../../src/adapters/logging/secrets.js";
import { CUSTOMER_SEEDS } from "../../tools/sandbox/data.js";

export const LOG_DIR_VARIABLE = "TEST_LOG_DIR";
/** One JSON line per recorder: { variable: value } of the secrets its bot was given. */
export const SECRETS_FILE = "secrets.jsonl";

interface Rule {
  kind: string;
  pattern: RegExp;
}

export interface Finding {
  kind: string;
  file: string;
  line: number;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A whole word, letters beyond ASCII included ("Seán"). */
const word = (text: string) =>
  new RegExp(`(?<![\\p{L}\\p{N}])${escaped(text)}(?![\\p{L}\\p{N}])`, "u");

/**
 * Customers are the provider sandbox's (tools/sandbox/data.ts); Telegram users are found by
 * the keys of a serialized User, Chat or Contact, since the tests' first names ("Po", "Ad")
 * are too short to look for as words.
 */
const PERSONAL: readonly Rule[] = [
  ...CUSTOMER_SEEDS.map((c) => ({
    kind: `customer ${c.cuid}'s phone number`,
    pattern: new RegExp(escaped(c.mobile)),
  })),
  ...CUSTOMER_SEEDS.flatMap((c) => [
    { kind: `customer ${c.cuid}'s first name`, pattern: word(c.firstName) },
    { kind: `customer ${c.cuid}'s last name`, pattern: word(c.lastName) },
  ]),
  // A payer's mobile number, as the payment sandboxes' test wallets have it (Khalti's
  // 9800000000-05, eSewa's 9806800001-05): the bot keeps one for a bank payment's refund.
  { kind: "a payer's mobile number", pattern: /(?<!\d)980(?:00000|68000)\d\d(?!\d)/ },
  ...["first_name", "last_name", "phone_number", "firstName", "lastName"].map((key) => ({
    kind: `a "${key}" field`,
    pattern: new RegExp(`"${key}"`),
  })),
];

/** The secrets every recorded bot was given, as rules named by their variable. */
function secretRules(dir: string): Rule[] {
  const path = join(dir, SECRETS_FILE);
  if (!existsSync(path)) return [];
  const pairs = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => Object.entries(JSON.parse(line) as Record<string, string>));
  const unique = new Map(pairs.map(([name, value]) => [`${name}\0${value}`, { name, value }]));
  // Every form the logger scrubs (as is, percent-decoded, JSON-escaped): none may be left.
  return [...unique.values()].map(({ name, value }) => ({
    kind: name,
    pattern: new RegExp(secretForms(value).map(escaped).join("|")),
  }));
}

export function scanLogs(dir: string): Finding[] {
  const rules = [...secretRules(dir), ...PERSONAL];
  const findings: Finding[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".log"))) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    lines.forEach((text, index) => {
      for (const rule of rules) {
        if (rule.pattern.test(text)) findings.push({ kind: rule.kind, file, line: index + 1 });
      }
    });
  }
  return findings;
}

/** At most `limit` findings, one a line; the values themselves are never shown. */
export function describeFindings(dir: string, findings: Finding[], limit = 50): string {
  const shown = findings
    .slice(0, limit)
    .map((f) => `  ${f.kind} in ${join(dir, f.file)}:${f.line}`)
    .join("\n");
  const more = findings.length > limit ? `\n  … and ${findings.length - limit} more` : "";
  return `The tests' logs hold what must never be logged (${findings.length}):\n${shown}${more}`;
}
