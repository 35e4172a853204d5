// Errors as the log shows them: an allow-list of fields, never the whole object. A grammY
// error holds the request's payload and its context (names, phone numbers, the API client
// with the token); pg's DatabaseError holds the failing row in `detail`.

/** Fields kept when their value is a string, number or boolean: codes and names of things. */
const KEPT = [
  "code", // Node's system errors, pg's SQLSTATE
  "errno",
  "syscall",
  "method", // GrammyError: the Bot API method
  "error_code", // GrammyError: Telegram's code
  "description", // GrammyError: Telegram's description
  "constraint", // DatabaseError
  "table",
  "column",
] as const;

/** Causes beyond this depth are cut: a chain of wrappers says enough in three steps. */
const MAX_DEPTH = 3;
/** The first errors of an AggregateError (a connection tried on every address, say). */
const MAX_ERRORS = 3;

export interface ErrorOutline {
  type: string;
  message?: string;
  stack?: string;
  cause?: ErrorOutline;
  errors?: ErrorOutline[];
  [field: string]: unknown;
}

/** What the log keeps of a thrown value. */
export function outlineError(value: unknown, depth = 0): ErrorOutline {
  if (!(value instanceof Error)) {
    // Thrown values that are not errors: only what they are, never their contents.
    return typeof value === "object" && value !== null
      ? { type: value.constructor?.name ?? "object" }
      : { type: typeof value, message: String(value) };
  }
  const outline: ErrorOutline = {
    type: value.constructor?.name || value.name,
    message: value.message,
    stack: value.stack,
  };
  const fields = value as unknown as Record<string, unknown>;
  for (const key of KEPT) {
    const field = fields[key];
    if (["string", "number", "boolean"].includes(typeof field)) outline[key] = field;
  }
  if (depth >= MAX_DEPTH) return outline;
  // grammY's HttpError and BotError keep what they wrap under `error`.
  const cause = value.cause ?? fields.error;
  if (cause !== undefined) outline.cause = outlineError(cause, depth + 1);
  if (value instanceof AggregateError) {
    outline.errors = value.errors.slice(0, MAX_ERRORS).map((e) => outlineError(e, depth + 1));
  }
  return outline;
}

/** pino's `formatters.log`: an Error under any other field than `err` is outlined too. */
export function outlineErrorFields(fields: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(fields);
  if (!entries.some(([key, value]) => key !== "err" && value instanceof Error)) return fields;
  return Object.fromEntries(
    entries.map(([key, value]) => [
      key,
      key !== "err" && value instanceof Error ? outlineError(value) : value,
    ]),
  );
}
