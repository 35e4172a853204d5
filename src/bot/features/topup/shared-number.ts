// The phone number a subscriber shared as their own contact, kept for the shop (which lists its
// connections), and the customer it was found to be: looked up once and kept for as long as a
// listing is, so that opening the shop costs no lookup each time. /forget forgets them all.
import type { CustomerInfo } from "../../../domain/model.js";
import type { BotDeps } from "../../deps.js";
import { newFlowId } from "../../shared/flow.js";

type Deps = Pick<BotDeps, "savedConnections" | "listings">;

/** The customer the user's number was found to be, as kept (for this user and number only). */
interface NumberCustomer {
  owner: number;
  phone: string;
  /** Drawn when kept: the shop's refs to its connections carry it (an old page's are refused). */
  id: string;
  info: CustomerInfo;
}

/** The number kept for a user, and its customer while kept for it (null: looked up again). */
export interface KeptNumber {
  phone: string;
  customer: Pick<NumberCustomer, "id" | "info"> | null;
}

/** The listings of a user's number: its customer, and the shop's menus opened from it. */
export const numberGroup = (user: number) => `number-${user}`;
const customerKey = (user: number) => `app-contact-${user}`;

/** The number was shared and a customer found by it: both kept for the shop. */
export async function keepNumber(
  deps: Deps,
  user: number,
  phone: string,
  info: CustomerInfo,
): Promise<{ id: string; info: CustomerInfo }> {
  await deps.savedConnections.keepSharedPhone(user, phone);
  const kept: NumberCustomer = { owner: user, phone, id: newFlowId(), info };
  await deps.listings.put(customerKey(user), kept, numberGroup(user));
  return kept;
}

/** The number kept for the user now (null: none), and its customer (null: looked up again). */
export async function keptNumber(deps: Deps, user: number): Promise<KeptNumber | null> {
  const phone = await deps.savedConnections.sharedPhone(user);
  if (phone === null) return null;
  const kept = (await deps.listings.get(customerKey(user))) as NumberCustomer | null;
  return { phone, customer: kept?.owner === user && kept.phone === phone ? kept : null };
}

/**
 * /forget: the saved connections, the number, its customer and the shop's menus opened from
 * it (a menu of the number is bought from no more).
 */
export async function forgetNumber(deps: Deps, user: number): Promise<void> {
  await deps.savedConnections.forget(user);
  await deps.listings.dropGroup(numberGroup(user));
}
