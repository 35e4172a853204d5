// The QR text Fonepay answers (`qrMessage`) is an EMVCo merchant-presented payload: fields of a
// two-digit tag, a two-digit length and the value, the last one tag 63 with the CRC-16/CCITT-FALSE
// (polynomial 0x1021, initial 0xFFFF, no reflection) of everything before its value, as four hex
// digits. A text that does not hold together is never shown: a bank app would refuse it, or pay
// something else. Fonepay's status answer carries no amount, so the QR's own amount (tag 54) in
// rupees (tag 53, 524) is what binds the amount to the prn: a text without it (the bank app
// would let the payer type any amount) or in another currency is never shown either.
// Fonepay's own sample fails its checksum: tested against independent values.

/** CRC-16/CCITT-FALSE of a text's bytes (UTF-8). */
export function crc16CcittFalse(text: string): number {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, "utf8")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The checksum field a payload ends with, for everything before it (`...6304` + 4 hex digits). */
export function emvcoChecksum(withoutChecksum: string): string {
  const head = `${withoutChecksum}6304`;
  return `${head}${crc16CcittFalse(head).toString(16).toUpperCase().padStart(4, "0")}`;
}

export type QrCheck =
  | { ok: true; fields: ReadonlyMap<string, string> }
  | { ok: false; reason: string };

/** ISO 4217's number for the Nepalese rupee, EMVCo's tag 53. */
const NPR = "524";

/**
 * Whether a QR text may be shown for `amount`: a well-formed EMVCo payload whose checksum holds,
 * asking for `amount` exactly (tag 54) in rupees (tag 53): the reason when it is not.
 */
export function checkQrMessage(text: string, amount: string): QrCheck {
  const read = readEmvco(text);
  if (!read.ok) return read;
  const stated = read.fields.get("54");
  if (stated === undefined) return { ok: false, reason: "the QR states no amount" };
  if (!sameAmount(stated, amount)) {
    return { ok: false, reason: "the amount in the QR is not the amount asked" };
  }
  if (read.fields.get("53") !== NPR) return { ok: false, reason: "the QR is not in rupees" };
  return read;
}

/** Whether a text is a well-formed EMVCo payload whose checksum holds, and its fields. */
export function readEmvco(text: string): QrCheck {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    const tag = text.slice(at, at + 2);
    const length = text.slice(at + 2, at + 4);
    if (!/^\d{2}$/.test(tag) || !/^\d{2}$/.test(length)) {
      return { ok: false, reason: `no field header at ${at}` };
    }
    const value = text.slice(at + 4, at + 4 + Number(length));
    if (value.length !== Number(length)) return { ok: false, reason: `field ${tag} cut short` };
    if (fields.has(tag)) return { ok: false, reason: `field ${tag} twice` };
    fields.set(tag, value);
    at += 4 + value.length;
    if (tag === "63") break;
  }
  if (fields.get("00") !== "01" || !text.startsWith("000201")) {
    return { ok: false, reason: "not an EMVCo payload (format indicator)" };
  }
  const checksum = fields.get("63");
  if (checksum === undefined || at !== text.length || !/^[0-9A-Fa-f]{4}$/.test(checksum)) {
    return { ok: false, reason: "no checksum field at its end" };
  }
  const expected = crc16CcittFalse(text.slice(0, -4));
  if (Number.parseInt(checksum, 16) !== expected) return { ok: false, reason: "checksum fails" };
  return { ok: true, fields };
}

/** Two decimal amounts equal as numbers written out ("700" and "700.00"), without floats. */
function sameAmount(a: string, b: string): boolean {
  const norm = (text: string) => {
    const [whole = "", fraction = ""] = text.trim().split(".");
    return `${whole.replace(/^0+(?=\d)/, "")}.${fraction.replace(/0+$/, "")}`;
  };
  return /^\d+(\.\d+)?$/.test(a.trim()) && norm(a) === norm(b);
}
