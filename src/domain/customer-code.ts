// What a subscriber may type to be found: a mobile number, customer id, set-top-box number or
// internet username. Checked for a plausible shape before the provider is asked.

export type CustomerCodeCheck = { ok: true; code: string } | { ok: false };

const PHONE_LIKE = /^\+?[\d\s\-().]+$/;
const NEPAL_COUNTRY_CODE = "977";
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{2,63}$/;

export function normalizeCustomerCode(input: string): CustomerCodeCheck {
  const text = input.trim();
  if (text === "" || text.length > 64) return { ok: false };
  if (PHONE_LIKE.test(text)) {
    let digits = text.replace(/\D/g, "");
    // A mobile number with the country code in front: keep the national number.
    if (digits.length === 13 && digits.startsWith(NEPAL_COUNTRY_CODE)) digits = digits.slice(3);
    if (digits.length < 5 || digits.length > 20) return { ok: false };
    return { ok: true, code: digits };
  }
  return USERNAME.test(text) ? { ok: true, code: text } : { ok: false };
}
