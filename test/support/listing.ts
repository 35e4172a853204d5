// A provider listing rewritten on its way out of the sandbox: tests of what a real provider
// might send differently.
import type { Sandbox } from "../../tools/sandbox/server.js";

export type ListedBouquet = Record<string, unknown> & { code: string; name: string };
export type Listing = {
  tv: { subscriptions: Record<string, unknown>[]; bouquets: ListedBouquet[] };
};

export const rewriteListing = (sandbox: Sandbox, change: (body: Listing) => void) =>
  sandbox.setFault("get-subscription-package", {
    kind: "transform",
    transform: (response) => {
      change(response.body as Listing);
      return response;
    },
  });
