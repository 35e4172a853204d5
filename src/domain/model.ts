// The one model of the provider's data that the whole bot uses. The provider client
// normalises both API versions into these types; nothing else knows which version is in use.
import type { Amount } from "./money.js";

export const SERVICE_KINDS = ["tv", "internet", "iptv"] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

export type BillingPeriod = "monthly" | "quarterly" | "half-yearly" | "yearly";

export interface Customer {
  cuid: string;
  firstName: string;
  lastName: string;
  status: string;
}

/** One connection of a customer; `id` is the STB number (tv) or username (internet, iptv). */
export interface Connection {
  service: ServiceKind;
  id: string;
  status: string;
}

export interface CustomerInfo {
  customer: Customer;
  connections: Connection[];
}

/**
 * A time the provider sent. `at` (ms since the epoch) is null when it could not be read; the
 * text is then shown as sent. A bare date is the start of that day, `dateOnly`.
 */
export interface ProviderTime {
  at: number | null;
  text: string;
  dateOnly?: boolean;
}

export interface Subscription {
  code: string;
  name: string;
  end: ProviderTime | null;
}

export interface Bouquet {
  code: string;
  /** The provider's name as sent, suffixes included. */
  name: string;
  /** The name without the billing period and `[AddOn]` markers. */
  displayName: string;
  price: Amount;
  /** `null` when the name carries no recognised period suffix. */
  period: BillingPeriod | null;
  addOn: boolean;
}

export interface Checkout {
  id: string;
  /** Our clock when the provider issued the token; the provider does not send it. */
  issuedAt: Date;
}

export interface PackageOffer {
  checkout: Checkout;
  customer: Customer;
  connection: Connection;
  subscriptions: Subscription[];
  bouquets: Bouquet[];
}

export interface TopupRequest {
  cuid: string;
  service: ServiceKind;
  connectionId: string;
  checkoutId: string;
  bouquetCode: string;
  amount: Amount;
  /** Our own references; sent on v1.0.1 only, at most 30 characters each. */
  reference?: string;
  reference2?: string;
}

/** A transaction as the provider reports it; only the transaction id is sure to be there. */
export interface Transaction {
  txnId: string;
  orderId: string | null;
  cuid: string | null;
  connectionId: string | null;
  bouquetCode: string | null;
  amount: Amount | null;
  date: ProviderTime | null;
  status: string | null;
  service: string | null;
}
