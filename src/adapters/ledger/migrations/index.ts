// Every migration, in order. Imported (not read from a folder) so that the bundle carries them.
import type { Migration } from "kysely/migration";
import { purchases } from "./0001-purchases.js";
import { payments } from "./0002-payments.js";
import { moneyRules } from "./0003-money-rules.js";
import { purchaseVersions } from "./0004-purchase-versions.js";
import { esewa } from "./0005-esewa.js";
import { paymentOffers } from "./0006-payment-offers.js";
import { providerBalance } from "./0007-provider-balance.js";
import { reconciliation } from "./0008-reconciliation.js";

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001-purchases": purchases,
  "0002-payments": payments,
  "0003-money-rules": moneyRules,
  "0004-purchase-versions": purchaseVersions,
  "0005-esewa": esewa,
  "0006-payment-offers": paymentOffers,
  "0007-provider-balance": providerBalance,
  "0008-reconciliation": reconciliation,
};
