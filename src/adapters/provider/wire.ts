// Response schemas and normalisers shared by both API versions. What a purchase cannot do
// without (ids, codes, names, the checkout token) is required and named by its path when
// missing; everything else is read leniently, because a real provider will differ from the
// spec's samples: numbers for strings, other date forms, amounts as strings, missing optional
// fields. An item that cannot be used (a bouquet without a valid price) is left out, never the
// whole answer.
import { parseBouquetName } from "../../domain/bouquet-name.js";
import type {
  Bouquet,
  Connection,
  Customer,
  ServiceKind,
  Subscription,
  Transaction,
} from "../../domain/model.js";
import { isChargeable, parseAmount } from "../../domain/money.js";
import { type ProviderOperation, ProviderProtocolError } from "../../domain/provider-errors.js";
import { z } from "../zod.js";
import { parseProviderTime } from "./datetime.js";

/** An identifier: a non-empty string, or a number taken as its digits. */
const id = z.union([z.string().trim().min(1), z.number().transform((value) => String(value))]);

/** Text that may be missing or of another type: null then. */
const optionalText = z
  .unknown()
  .transform((value) =>
    typeof value === "string" ? value : typeof value === "number" ? String(value) : null,
  );

const looseItems = z.array(z.unknown()).catch([]);

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

const textOf = (value: unknown): string | null => optionalText.parse(value);
const idOf = (value: unknown): string | null => {
  const parsed = id.safeParse(value);
  return parsed.success ? parsed.data : null;
};

export const customerFields = {
  cuid: id,
  first_name: optionalText,
  last_name: optionalText,
  status: optionalText,
};

export const toCustomer = (c: z.infer<z.ZodObject<typeof customerFields>>): Customer => ({
  cuid: c.cuid,
  firstName: c.first_name ?? "",
  lastName: c.last_name ?? "",
  status: c.status ?? "unknown",
});

export const customerSchema = z.looseObject(customerFields).transform(toCustomer);

/** tv items carry `stb`, internet items `username`; IPTV items are not described by the spec. */
const ID_FIELDS: Record<ServiceKind, string[]> = {
  tv: ["stb", "reqId", "id"],
  internet: ["username", "reqId", "id"],
  iptv: ["username", "stb", "reqId", "id"],
};

function toConnection(service: ServiceKind, item: unknown): Connection | null {
  const fields = record(item);
  if (!fields) return null;
  const connectionId = ID_FIELDS[service].map((field) => idOf(fields[field])).find(Boolean);
  if (!connectionId) return null;
  return { service, id: connectionId, status: textOf(fields.status) ?? "unknown" };
}

export const connectionListsSchema = z
  .looseObject({ tv: looseItems, internet: looseItems, iptv: looseItems })
  .transform((lists): Connection[] =>
    (["tv", "internet", "iptv"] as const).flatMap((service) =>
      lists[service].flatMap((item) => toConnection(service, item) ?? []),
    ),
  );

function toSubscription(item: unknown, zone: string): Subscription | null {
  const fields = record(item);
  const code = idOf(fields?.code) ?? "";
  const name = textOf(fields?.name) ?? code;
  if (!fields || name === "") return null;
  return { code, name, end: parseProviderTime(fields.enddate, zone) };
}

/** The bouquet a listing item describes, or null when it cannot be sold (logged by the caller). */
function toBouquet(item: unknown, priceField: "price" | "amt"): Bouquet | null {
  const fields = record(item);
  const code = idOf(fields?.code);
  const name = textOf(fields?.name);
  const price = parseAmount(fields?.[priceField]);
  if (!code || !name || price === null || !isChargeable(price)) return null;
  return { code, name, price, ...parseBouquetName(name) };
}

export interface ParsedPackage {
  checkoutId: string;
  customer: Customer | null;
  connection: Connection;
  subscriptions: Subscription[];
  bouquets: Bouquet[];
  /** Items of the bouquet list that cannot be sold: no code, name or positive price. */
  unsellable: number;
}

/**
 * get-subscription-package's body: the service block is named after the requested service;
 * only the bouquet's price field differs between versions.
 */
export const packageBodySchema = (
  zone: string,
  service: ServiceKind,
  connectionId: string,
  priceField: "price" | "amt",
): z.ZodType<ParsedPackage> =>
  z
    .looseObject({
      checkoutId: id,
      customer: customerSchema.optional().catch(undefined),
      [service]: z.looseObject({
        connection: z.unknown(),
        subscriptions: looseItems,
        bouquets: z.array(z.unknown()),
      }),
    })
    .transform((raw): ParsedPackage => {
      const body = raw as unknown as {
        checkoutId: string;
        customer?: Customer;
      } & Record<
        ServiceKind,
        { connection: unknown; subscriptions: unknown[]; bouquets: unknown[] }
      >;
      const block = body[service];
      const listed = block.bouquets.map((item) => toBouquet(item, priceField));
      const bouquets = listed.filter((bouquet): bouquet is Bouquet => bouquet !== null);
      return {
        checkoutId: body.checkoutId,
        customer: body.customer ?? null,
        connection: toConnection(service, block.connection) ?? {
          service,
          id: connectionId,
          status: "unknown",
        },
        subscriptions: block.subscriptions.flatMap((item) => toSubscription(item, zone) ?? []),
        bouquets,
        unsellable: listed.length - bouquets.length,
      };
    });

export const transactionBodySchema = (zone: string) =>
  z
    .looseObject({
      result: z.looseObject({ txnId: id }),
    })
    .transform(
      ({ result: r }): Transaction => ({
        txnId: r.txnId,
        orderId: idOf(r.orderId),
        cuid: idOf(r.cuid),
        connectionId: idOf(r.reqId),
        bouquetCode: idOf(r.bouquetId),
        amount: parseAmount(r.amt),
        date: parseProviderTime(r.txnDate, zone),
        status: textOf(r.status),
        service: textOf(r.service),
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
