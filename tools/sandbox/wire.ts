// The JSON shapes the provider sends, per API version (spec sections 2 and 4, changelog 9).

import { CATALOGUE } from "./bouquets.js";
import type { FailureCode } from "./codes.js";
import type { ConnectionState, CustomerState, SandboxState } from "./state.js";
import type { ApiVersion, SandboxTransaction, ServiceKind, WireTransaction } from "./types.js";

// A type alias (not an interface) so it passes as the Record a transform fault receives.
export type ProviderResponse = {
  success: boolean;
  code: string;
  message: string;
  body: Record<string, unknown>;
};

export function succeed(
  code: string,
  message: string,
  body: Record<string, unknown>,
): ProviderResponse {
  return { success: true, code, message, body };
}

export function fail(code: FailureCode, message: string): ProviderResponse {
  return { success: false, code, message, body: {} };
}

export function unauthorized(): ProviderResponse {
  return fail("SBX_UNAUTHORIZED", "Invalid or missing bearer token");
}

function wireCustomer(customer: CustomerState) {
  const { cuid, firstName, lastName, status } = customer;
  return { cuid, first_name: firstName, last_name: lastName, status };
}

/** tv items carry `stb`, internet and iptv items `username`. */
function wireConnection(connection: ConnectionState) {
  const key = connection.service === "tv" ? "stb" : "username";
  return { [key]: connection.id, status: connection.status };
}

function connectionLists(customer: CustomerState): Record<ServiceKind, unknown[]> {
  const of = (service: ServiceKind) =>
    customer.connections.filter((c) => c.service === service).map(wireConnection);
  return { tv: of("tv"), internet: of("internet"), iptv: of("iptv") };
}

/** v1.0.1 nests `connections` in the customer; v1.0.0 has `connection` beside it. */
export function customerInformationBody(version: ApiVersion, customer: CustomerState) {
  if (version === "v1.0.1") {
    return { customer: { ...wireCustomer(customer), connections: connectionLists(customer) } };
  }
  return { customer: wireCustomer(customer), connection: connectionLists(customer) };
}

/** v1.0.1 calls the bouquet price `price`, v1.0.0 `amt`. */
export function packageBody(
  version: ApiVersion,
  state: SandboxState,
  checkoutId: string,
  customer: CustomerState,
  connection: ConnectionState,
) {
  const priceKey = version === "v1.0.1" ? "price" : "amt";
  return {
    checkoutId,
    customer: wireCustomer(customer),
    [connection.service]: {
      connection: wireConnection(connection),
      subscriptions: connection.subscriptions.map((subscription) => ({
        code: subscription.code,
        name: subscription.name,
        startdate: state.format(subscription.start),
        enddate: state.format(subscription.end),
      })),
      bouquets: CATALOGUE[connection.service].map(({ code, name, price }) => ({
        code,
        name,
        [priceKey]: price,
      })),
    },
  };
}

export function wireTransaction(transaction: SandboxTransaction): WireTransaction {
  const { orderId, txnId, cuid, reqId, bouquetId, amt, txnDate, status, service } = transaction;
  return { orderId, txnId, cuid, reqId, bouquetId, amt, txnDate, status, service };
}
