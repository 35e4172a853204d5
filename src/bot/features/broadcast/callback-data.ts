// The buttons of broadcasts: the admin's choices in one /broadcast conversation (carrying the
// conversation's token), and the "stop announcements" button under every broadcast.
import { callbackCodec } from "../../shared/callback-data.js";

export type BroadcastButton =
  | { kind: "audience"; token: string; audience: string }
  | { kind: "send"; token: string }
  | { kind: "abort"; token: string }
  | { kind: "unsubscribe" };

export const broadcastButtons = callbackCodec<BroadcastButton>(
  "bc",
  (button) => {
    switch (button.kind) {
      case "audience":
        return ["a", button.token, button.audience];
      case "send":
        return ["go", button.token];
      case "abort":
        return ["no", button.token];
      case "unsubscribe":
        return ["stop"];
    }
  },
  ([op, token, audience, ...rest]) => {
    if (rest.length > 0) return null;
    if (op === "stop") return token === undefined ? { kind: "unsubscribe" } : null;
    if (token === undefined) return null;
    if (op === "a") return audience === undefined ? null : { kind: "audience", token, audience };
    if (audience !== undefined) return null;
    if (op === "go") return { kind: "send", token };
    return op === "no" ? { kind: "abort", token } : null;
  },
);
