// Callback data of support cards: the Refresh button carries a short random id that Redis
// maps to the looked-up code (see domain/lookup-refs.ts), never the code itself.

export const MAX_CALLBACK_BYTES = 64;

const PREFIX = "su:r:";
export const REFRESH_DATA = /^su:r:([A-Za-z0-9_-]{8,24})$/;

export function encodeRefresh(refId: string): string {
  const data = `${PREFIX}${refId}`;
  if (!REFRESH_DATA.test(data)) throw new RangeError("not a lookup ref id");
  if (Buffer.byteLength(data, "utf8") > MAX_CALLBACK_BYTES) {
    throw new RangeError(`callback data over ${MAX_CALLBACK_BYTES} bytes`);
  }
  return data;
}

/** The ref id, or null for anything this bot did not produce. */
export function decodeRefresh(data: string): string | null {
  return REFRESH_DATA.exec(data)?.[1] ?? null;
}
