// Response schemas and normalisers shared by both API versions.
import { z } from "zod";
import { parseBouquetName } from "../../domain/bouquet-name.js";
import type {
  Bouquet,
  Connection,
  Customer,
  ServiceKind,
  Subscription,
  Transaction,
} from "../../domain/model.js";
import { type ProviderOperation, ProviderProtocolError } from "../../domain/provider-errors.js";
import { parseProviderDateTime } from "./datetime.js";

const providerDate = (zone: string) =>
  z.string().transform((value, ctx) => {
    const parsed = parseProviderDateTime(value, zone);
    if (!parsed) {
      ctx.addIssue({ code: "custom", message: "expected a YYYY-MM-DD HH:MM:SS time" });
      return z.NEVER;
    }
    return parsed;
  });

const amount = z.number().refine(Number.isFinite, { error: "expected a finite number" });

export const customerFields = {
  cuid: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  status: z.string(),
};

export const toCustomer = (c: z.infer<z.ZodObject<typeof customerFields>>): Customer => ({
  cuid: c.cuid,
  firstName: c.first_name,
  lastName: c.last_name,
  status: c.status,
});

export const customerSchema = z.object(customerFields).transform(toCustomer);

const tvConnection = z.object({ stb: z.string(), status: z.string() });
const namedConnection = z.object({ username: z.string(), status: z.string() });
/** IPTV items are not described by the spec: take whichever identifier they carry. */
const iptvConnection = z.looseObject({}).transform((item) => {
  const id = [item.username, item.stb, item.reqId, item.id].find((v) => typeof v === "string");
  const status = typeof item.status === "string" ? item.status : "unknown";
  return id === undefined ? null : { id: id as string, status };
});

export const connectionListsSchema = z
  .object({
    tv: z.array(tvConnection).default([]),
    internet: z.array(namedConnection).default([]),
    iptv: z.array(iptvConnection).default([]),
  })
  .transform((lists): Connection[] => [
    ...lists.tv.map((c) => ({ service: "tv" as const, id: c.stb, status: c.status })),
    ...lists.internet.map((c) => ({
      service: "internet" as const,
      id: c.username,
      status: c.status,
    })),
    ...lists.iptv.flatMap((c) => (c ? [{ service: "iptv" as const, ...c }] : [])),
  ]);

const subscriptionSchema = (zone: string) =>
  z
    .object({
      code: z.string(),
      name: z.string(),
      startdate: providerDate(zone),
      enddate: providerDate(zone),
    })
    .transform(
      (s): Subscription => ({ code: s.code, name: s.name, start: s.startdate, end: s.enddate }),
    );

function toBouquet(code: string, name: string, price: number): Bouquet {
  return { code, name, price, ...parseBouquetName(name) };
}

const serviceBlockSchema = (zone: string, bouquet: z.ZodType<Bouquet>) =>
  z.object({
    connection: z.looseObject({ status: z.string() }),
    subscriptions: z.array(subscriptionSchema(zone)).default([]),
    bouquets: z.array(bouquet),
  });

export interface ParsedPackage {
  checkoutId: string;
  customer: Customer;
  connection: Connection;
  subscriptions: Subscription[];
  bouquets: Bouquet[];
}

/**
 * get-subscription-package's body: the service block is named after the requested service;
 * only the bouquet's price field differs between versions.
 */
export const packageBodySchema = (
  zone: string,
  service: ServiceKind,
  bouquet: z.ZodType<Bouquet>,
): z.ZodType<ParsedPackage> => {
  const blockSchema = serviceBlockSchema(zone, bouquet);
  const shape = { checkoutId: z.string().min(1), customer: customerSchema, [service]: blockSchema };
  return z.object(shape).transform((raw, ctx): ParsedPackage => {
    const body = raw as { checkoutId: string; customer: Customer } & Record<
      string,
      z.infer<typeof blockSchema>
    >;
    const block = body[service] as z.infer<typeof blockSchema>;
    const idField = service === "tv" ? "stb" : "username";
    const id = block.connection[idField];
    if (typeof id !== "string") {
      ctx.addIssue({
        code: "custom",
        path: [service, "connection", idField],
        message: "expected string",
      });
      return z.NEVER;
    }
    return {
      checkoutId: body.checkoutId,
      customer: body.customer,
      connection: { service, id, status: block.connection.status },
      subscriptions: block.subscriptions,
      bouquets: block.bouquets,
    };
  });
};

export const bouquetSchema = (priceField: "price" | "amt"): z.ZodType<Bouquet> =>
  z.object({ code: z.string(), name: z.string(), [priceField]: amount }).transform((b) => {
    const raw = b as { code: string; name: string } & Record<string, number>;
    return toBouquet(raw.code, raw.name, raw[priceField] as number);
  });

export const transactionBodySchema = (zone: string) =>
  z
    .object({
      result: z.object({
        orderId: z.string(),
        txnId: z.string(),
        cuid: z.string(),
        reqId: z.string(),
        bouquetId: z.string(),
        amt: amount,
        txnDate: providerDate(zone),
        status: z.string(),
        service: z.string(),
      }),
    })
    .transform(
      ({ result: r }): Transaction => ({
        orderId: r.orderId,
        txnId: r.txnId,
        cuid: r.cuid,
        connectionId: r.reqId,
        bouquetCode: r.bouquetId,
        amount: r.amt,
        date: r.txnDate,
        status: r.status,
        service: r.service,
      }),
    );

/** Validates `body` against a schema; failures name the field path and never the value. */
export function parseBody<T>(operation: ProviderOperation, schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = ["body", ...(issue?.path ?? [])]
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`,
    )
    .join("");
  throw new ProviderProtocolError(operation, path, issue?.message ?? "invalid");
}
