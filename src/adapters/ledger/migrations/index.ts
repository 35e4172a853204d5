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
import { offerLifecycle } from "./0009-offer-lifecycle.js";
import { paymentAnomalies } from "./0010-payment-anomalies.js";
import { paymentPayer } from "./0011-payment-payer.js";
import { documentedStates } from "./0012-documented-states.js";
import { customerProved } from "./0013-customer-proved.js";
import { menuMessage } from "./0014-menu-message.js";
import { refundLease } from "./0015-refund-lease.js";
import { moneyGuards } from "./0016-money-guards.js";
import { fonepay } from "./0017-fonepay.js";

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001-purchases": purchases,
  "0002-payments": payments,
  "0003-money-rules": moneyRules,
  "0004-purchase-versions": purchaseVersions,
  "0005-esewa": esewa,
  "0006-payment-offers": paymentOffers,
  "0007-provider-balance": providerBalance,
  "0008-reconciliation": reconciliation,
  "0009-offer-lifecycle": offerLifecycle,
  "0010-payment-anomalies": paymentAnomalies,
  "0011-payment-payer": paymentPayer,
  "0012-documented-states": documentedStates,
  "0013-customer-proved": customerProved,
  "0014-menu-message": menuMessage,
  "0015-refund-lease": refundLease,
  "0016-money-guards": moneyGuards,
  "0017-fonepay": fonepay,
};
