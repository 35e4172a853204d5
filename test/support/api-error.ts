import { GrammyError } from "grammy";

/** The GrammyError a Bot API call rejected with. */
export async function apiError(call: Promise<unknown>): Promise<GrammyError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof GrammyError))
    throw new Error(`expected a GrammyError, got ${String(error)}`);
  return error;
}
