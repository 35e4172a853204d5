// The end the provider lists now for one subscription: the receipt's new end date, and the
// check that a reminder's subscription was not renewed meanwhile.
import type { ProviderTime, ServiceKind } from "./model.js";
import type { Log, ProviderPort } from "./ports.js";

/** A slow provider must not hold up a receipt or a reminder for long: they go without it. */
const REREAD_MS = 5_000;

export interface ListedSubscription {
  cuid: string;
  connection: { service: ServiceKind; id: string };
  code: string;
}

/** null when it is not listed, or cannot be read in time (logged with `context`). */
export async function listedEnd(
  provider: Pick<ProviderPort, "getPackages">,
  subscription: ListedSubscription,
  log: Log,
  context: Record<string, unknown>,
): Promise<ProviderTime | null> {
  try {
    const offer = await provider.getPackages(
      subscription.cuid,
      subscription.connection,
      AbortSignal.timeout(REREAD_MS),
    );
    return offer.subscriptions.find((s) => s.code === subscription.code)?.end ?? null;
  } catch (error) {
    log.warn({ err: error, ...context }, "could not re-read a subscription's end");
    return null;
  }
}
