// Fonepay's dataValidation: HMAC-SHA512 with the merchant's secret key (UTF-8) over the
// request's values joined by commas as they are sent (not URL-encoded), written as hex. Fonepay's
// own samples disagree on the hex case (its Java sample upper, its examples lower): the case is
// the configuration's (FONEPAY_SIGNATURE_CASE). Tested against the published examples that
// reproduce and an independent computation, never against the ones that do not.
import { createHmac } from "node:crypto";

export type HexCase = "lower" | "upper";

/** HMAC-SHA512 over `values` joined by commas, as hex in `hexCase`. */
export function fonepaySignature(
  secretKey: string,
  values: readonly string[],
  hexCase: HexCase = "lower",
): string {
  const hex = createHmac("sha512", Buffer.from(secretKey, "utf8"))
    .update(values.join(","), "utf8")
    .digest("hex");
  return hexCase === "upper" ? hex.toUpperCase() : hex;
}

/** What the QR request signs, in Fonepay's order. */
export interface QrRequestValues {
  amount: string;
  prn: string;
  merchantCode: string;
  remarks1: string;
  remarks2: string;
}

/** The QR request's dataValidation: over `amount,prn,merchantCode,remarks1,remarks2`. */
export function qrRequestSignature(
  secretKey: string,
  values: QrRequestValues,
  hexCase?: HexCase,
): string {
  const { amount, prn, merchantCode, remarks1, remarks2 } = values;
  return fonepaySignature(secretKey, [amount, prn, merchantCode, remarks1, remarks2], hexCase);
}

/** The status call's dataValidation: over `prn,merchantCode`. */
export function statusSignature(
  secretKey: string,
  values: { prn: string; merchantCode: string },
  hexCase?: HexCase,
): string {
  return fonepaySignature(secretKey, [values.prn, values.merchantCode], hexCase);
}
