// The four provider operations over the sandbox state. Each returns the HTTP status and the
// provider envelope; business failures are HTTP 200 with success false, as the brief asks.

import { findBouquet } from "./bouquets.js";
import { SUCCESS_CODES } from "./codes.js";
import type { ParsedBody } from "./http.js";
import type { SandboxState } from "./state.js";
import type { ApiVersion, SandboxOperation } from "./types.js";
import {
  type JsonObject,
  numericAmount,
  optionalString,
  RequestError,
  requireAmount,
  requireObject,
  requireService,
  requireString,
} from "./validate.js";
import {
  customerInformationBody,
  fail,
  type ProviderResponse,
  packageBody,
  succeed,
  wireTransaction,
} from "./wire.js";

export interface OperationContext {
  state: SandboxState;
  version: ApiVersion;
  now: Date;
  checkoutTtlMs: number;
}

export interface OperationResult {
  status: number;
  response: ProviderResponse;
}

const UDF_MAX_LENGTH = 30;
/** Prices have at most two decimals; anything closer counts as equal. */
const AMOUNT_TOLERANCE = 0.005;

type Handler = (body: JsonObject, context: OperationContext) => ProviderResponse;

const getCustomerInformation: Handler = (body, { state, version }) => {
  const code = requireString(body, "code");
  const customer = state.findByCode(code);
  if (!customer) return fail("SBX_CUSTOMER_NOT_FOUND", `No customer matches code "${code}"`);
  return succeed(
    SUCCESS_CODES["get-customer-information"],
    "Customer information fetched successfully",
    customerInformationBody(version, customer),
  );
};

const getSubscriptionPackage: Handler = (body, { state, version, now, checkoutTtlMs }) => {
  const cuid = requireString(body, "cuid");
  const service = requireService(body);
  const reqId = requireString(body, "reqId");
  const customer = state.findCustomer(cuid);
  if (!customer) return fail("SBX_CUSTOMER_NOT_FOUND", `No customer with cuid "${cuid}"`);
  const connection = customer.connections.find((c) => c.service === service && c.id === reqId);
  if (!connection) {
    return fail("SBX_CONNECTION_NOT_FOUND", `Customer ${cuid} has no ${service} "${reqId}"`);
  }
  const expiresAt = new Date(now.getTime() + checkoutTtlMs);
  const checkoutId = state.issueCheckout(cuid, connection, expiresAt);
  return succeed(
    SUCCESS_CODES["get-subscription-package"],
    "Subscription packages fetched successfully",
    packageBody(version, state, checkoutId, customer, connection),
  );
};

const subscriptionPackageTopup: Handler = (body, { state, version, now }) => {
  const cuid = requireString(body, "cuid");
  const service = requireService(body);
  const reqId = requireString(body, "reqId");
  const checkoutId = requireString(body, "checkoutId");
  const bouquetId = requireString(body, "bouquetId");
  const amt = requireAmount(body);
  // udf1/udf2 arrived with v1.0.1; v1.0.0 ignores them entirely.
  const udf1 = version === "v1.0.1" ? optionalString(body, "udf1") : undefined;
  const udf2 = version === "v1.0.1" ? optionalString(body, "udf2") : undefined;

  const checkout = state.checkouts.get(checkoutId);
  if (!checkout) return fail("SBX_CHECKOUT_UNKNOWN", `Unknown checkoutId "${checkoutId}"`);
  if (state.transactions.has(checkoutId)) {
    return fail("SBX_CHECKOUT_USED", "This checkoutId was already used");
  }
  if (now >= checkout.expiresAt) return fail("SBX_CHECKOUT_EXPIRED", "This checkoutId expired");
  const { connection } = checkout;
  if (checkout.cuid !== cuid || connection.service !== service || connection.id !== reqId) {
    return fail(
      "SBX_CHECKOUT_MISMATCH",
      `This checkoutId was issued for ${checkout.cuid} / ${connection.service} / ${connection.id}`,
    );
  }
  const bouquet = findBouquet(service, bouquetId);
  if (!bouquet) {
    return fail("SBX_BOUQUET_NOT_OFFERED", `Bouquet "${bouquetId}" is not offered for ${reqId}`);
  }
  const amount = numericAmount(amt);
  if (amount === null) return fail("SBX_AMOUNT_INVALID", `amt "${amt}" is not numeric`);
  if (Math.abs(amount - bouquet.price) > AMOUNT_TOLERANCE) {
    return fail("SBX_AMOUNT_MISMATCH", `amt ${amount} differs from the price ${bouquet.price}`);
  }
  for (const [field, value] of [
    ["udf1", udf1],
    ["udf2", udf2],
  ] as const) {
    if (value !== undefined && value.length > UDF_MAX_LENGTH) {
      return fail("SBX_UDF_TOO_LONG", `${field} is longer than ${UDF_MAX_LENGTH} characters`);
    }
  }
  const transaction = state.topUp({ checkout, bouquet, version, udf1, udf2, now });
  return succeed(SUCCESS_CODES["subscription-package-topup"], "Topup successful", {
    result: wireTransaction(transaction),
  });
};

const txnStatus: Handler = (body, { state }) => {
  const checkoutId = requireString(body, "checkoutId");
  const transaction = state.transactions.get(checkoutId);
  if (!transaction) {
    const why = state.checkouts.has(checkoutId) ? "was never used for a top-up" : "is unknown";
    return fail("SBX_TXN_NOT_FOUND", `No transaction: checkoutId "${checkoutId}" ${why}`);
  }
  return succeed(SUCCESS_CODES["txn-status"], "Transaction status fetched successfully", {
    result: wireTransaction(transaction),
  });
};

const HANDLERS: Record<SandboxOperation, Handler> = {
  "get-customer-information": getCustomerInformation,
  "get-subscription-package": getSubscriptionPackage,
  "subscription-package-topup": subscriptionPackageTopup,
  "txn-status": txnStatus,
};

export function performOperation(
  operation: SandboxOperation,
  body: ParsedBody,
  context: OperationContext,
): OperationResult {
  try {
    if (!body.valid) throw new RequestError("SBX_INVALID_JSON", "The request body is not JSON");
    return { status: 200, response: HANDLERS[operation](requireObject(body.value), context) };
  } catch (error) {
    if (error instanceof RequestError) {
      return { status: 400, response: fail(error.code, error.message) };
    }
    throw error;
  }
}
