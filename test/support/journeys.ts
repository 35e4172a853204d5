// Journeys (the top-up menu's state) built by hand, for the tests of browsing and its views.
import type { Journey } from "../../src/bot/features/topup/journey.js";
import { parseBouquetName } from "../../src/domain/bouquet-name.js";
import type { Bouquet } from "../../src/domain/model.js";

export const bouquet = (code: string, name: string, price = "100"): Bouquet => ({
  code,
  name,
  price,
  ...parseBouquetName(name),
});

export function journeyWith(
  bouquets: Bouquet[],
  subscriptions: { code: string; end: number }[] = [],
): Journey {
  return {
    v: 1,
    id: "j",
    updatedAt: 0,
    customer: { cuid: "1", firstName: "A", lastName: "B", status: "active" },
    connection: { service: "tv", id: "1", status: "active" },
    checkout: { id: "c", issuedAt: 0 },
    subscriptions: subscriptions.map((s) => ({
      code: s.code,
      name: s.code,
      end: { at: s.end, text: String(s.end) },
    })),
    bouquets,
    masked: false,
  };
}
