// A payment system's reference of one offer, made by the bot: eSewa's transaction_uuid,
// Khalti's purchase_order_id. A new one for every offer (a link made again after the buyer
// switched methods and back gets another), traceable to its purchase (its id leads), and within
// what both systems take: letters, digits and hyphens, at most 49 characters (neither publishes
// a maximum; their own examples are shorter).
import { createHash, randomBytes } from "node:crypto";

/** A purchase id used as it is: letters, digits and hyphens, not too long. */
const USABLE_ID = /^[A-Za-z0-9-]{1,40}$/;

/**
 * The purchase's id (purchase ids are unique in the ledger), or a digest of it when it has other
 * characters, and a random part, so that it is never an earlier offer's, nor another merchant's
 * (eSewa's and Khalti's test merchants are shared).
 */
export function offerReferenceFor(purchaseId: string): string {
  const base = USABLE_ID.test(purchaseId)
    ? purchaseId
    : createHash("sha256").update(purchaseId).digest("hex").slice(0, 24);
  return `${base}-${randomBytes(4).toString("hex")}`;
}

/** Fonepay's prn: at most 25 characters. */
const PRN_LENGTH = 25;

/**
 * Fonepay's prn of one QR: new for every request and never reused (the ledger keeps every
 * offer, one purchase per prn), at most 25 letters, digits and hyphens: a short digest of the
 * purchase's id (8 hex digits, the same for its every QR) and 16 random hex digits.
 */
export function prnFor(purchaseId: string): string {
  const tag = createHash("sha256").update(purchaseId).digest("hex").slice(0, 8);
  return `${tag}-${randomBytes(8).toString("hex")}`.slice(0, PRN_LENGTH);
}
