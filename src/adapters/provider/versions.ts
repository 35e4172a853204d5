// What differs between v1.0.0 and v1.0.1, and nothing else. See provider-api.md section 9.
import type { CustomerInfo, ServiceKind, TopupRequest } from "../../domain/model.js";
import { z } from "../zod.js";
import {
  connectionListsSchema,
  customerFields,
  customerSchema,
  type ParsedPackage,
  packageBodySchema,
  toCustomer,
} from "./wire.js";

export const PROVIDER_API_VERSIONS = ["v1.0.0", "v1.0.1"] as const;
export type ProviderApiVersion = (typeof PROVIDER_API_VERSIONS)[number];

export const UDF_MAX_LENGTH = 30;

export interface VersionCodec {
  customerInfo: z.ZodType<CustomerInfo>;
  packageBody(service: ServiceKind, connectionId: string): z.ZodType<ParsedPackage>;
  topupPayload(request: TopupRequest): Record<string, unknown>;
}

function basePayload(request: TopupRequest): Record<string, unknown> {
  return {
    cuid: request.cuid,
    service: request.service,
    reqId: request.connectionId,
    checkoutId: request.checkoutId,
    bouquetId: request.bouquetCode,
    // The price exactly as listed, as a string like the spec's request samples.
    amt: request.amount,
  };
}

const v1_0_0 = (zone: string): VersionCodec => ({
  customerInfo: z
    .looseObject({
      customer: customerSchema,
      connection: connectionListsSchema,
    })
    .transform((b) => ({ customer: b.customer, connections: b.connection })),
  packageBody: (service, connectionId) => packageBodySchema(zone, service, connectionId, "amt"),
  topupPayload: basePayload,
});

const v1_0_1 = (zone: string): VersionCodec => ({
  customerInfo: z
    .looseObject({
      customer: z.looseObject({ ...customerFields, connections: connectionListsSchema }),
    })
    .transform(({ customer: { connections, ...customer } }) => ({
      customer: toCustomer(customer),
      connections,
    })),
  packageBody: (service, connectionId) => packageBodySchema(zone, service, connectionId, "price"),
  topupPayload: (request) => ({
    ...basePayload(request),
    ...(request.reference === undefined ? {} : { udf1: request.reference }),
    ...(request.reference2 === undefined ? {} : { udf2: request.reference2 }),
  }),
});

export function codecFor(version: ProviderApiVersion, zone: string): VersionCodec {
  return version === "v1.0.0" ? v1_0_0(zone) : v1_0_1(zone);
}
