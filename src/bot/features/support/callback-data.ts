// The Refresh button of a support card carries a short random id that the lookup-ref store
// maps to the looked-up code, never the code itself.
import { callbackCodec } from "../../shared/callback-data.js";

const REF_ID = /^[\w-]{8,24}$/;

export const refreshButtons = callbackCodec<string>(
  "su",
  (refId) => ["r", refId],
  ([op, refId, ...rest]) =>
    op === "r" && refId !== undefined && REF_ID.test(refId) && rest.length === 0 ? refId : null,
);
