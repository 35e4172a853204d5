// A customer looked up for a subscriber, in the chat or the shop alike: one lookup of the user's
// LOOKUP_LIMIT (a code that is not found costs the rest of a miss), then the provider's answer.
import type { CustomerInfo } from "../../../domain/model.js";
import { ask, type ReadFailure } from "../../../domain/provider-answers.js";
import type { BotDeps } from "../../deps.js";

export type Lookup =
  | { kind: "found"; info: CustomerInfo }
  | { kind: "limited"; retryAt: number }
  | { kind: "failed"; failure: ReadFailure };

/** `code` as normalizeCustomerCode made it. */
export async function lookUpCustomer(
  deps: Pick<BotDeps, "lookupLimit" | "metrics" | "provider" | "logger">,
  userId: number,
  code: string,
): Promise<Lookup> {
  const allowance = await deps.lookupLimit.take(userId);
  if (!allowance.allowed) {
    deps.metrics.lookupsLimited.inc();
    return { kind: "limited", retryAt: allowance.retryAt };
  }
  const found = await ask(() => deps.provider.getCustomer(code), deps.logger, "customer lookup");
  if (!found.ok && found.failure === "not-found") await deps.lookupLimit.missed(userId);
  return found.ok
    ? { kind: "found", info: found.value }
    : { kind: "failed", failure: found.failure };
}

/** What the user is told when the provider could not answer (a refusal means "not found"). */
export const failureKey = (failure: ReadFailure) =>
  failure === "unauthorized" ? "topups-paused" : "provider-unavailable";
