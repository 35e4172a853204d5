// eSewa's JSON read as eSewa wrote it. Its amounts are JSON numbers written the way Java writes a
// double (`"total_amount":1000.0`), and the redirect's signature covers that text: a plain
// JSON.parse would make it 1000 and the signature would never verify. So every scalar keeps its
// own text (JSON.parse's source access, in V8 since Node 21): a string its value, a number, a
// boolean or null the characters received.

type Reviver = (
  this: unknown,
  key: string,
  value: unknown,
  context?: { source?: string },
) => unknown;

const asReceived: Reviver = (_key, value, context) => {
  if (typeof value === "string") return value;
  // Objects and arrays arrive built from their members; null is a scalar with a source.
  if (typeof value === "object" && value !== null) return value;
  return context?.source ?? String(value);
};

/**
 * The top-level fields of a JSON object, each scalar as received (`1000.0` stays "1000.0");
 * nested objects and arrays are left out. Undefined when the text is not a JSON object.
 */
export function esewaFields(text: string): Record<string, string> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, asReceived as Parameters<typeof JSON.parse>[1]);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    // defineProperty: a field named __proto__ is a field like any other.
    if (typeof value === "string") {
      Object.defineProperty(fields, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return fields;
}
