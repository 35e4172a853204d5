// The sandbox's bouquet catalogue, one list per service. Names follow the provider's
// convention (period in capitals in parentheses, `[AddOn]` on TV add-ons); a few prices
// have decimals and a few codes are longer than 64 bytes, the limit of Telegram callback data.

import type { ServiceKind } from "./types.js";

export interface CatalogueBouquet {
  code: string;
  name: string;
  price: number;
}

const PERIODS = [
  { suffix: "MONTHLY", letter: "M", factor: 1 },
  { suffix: "QUARTERLY", letter: "Q", factor: 2.9 },
  { suffix: "HALF YEARLY", letter: "H", factor: 5.7 },
  { suffix: "YEARLY", letter: "Y", factor: 11 },
] as const;

const roundToCents = (value: number): number => Math.round(value * 100) / 100;

/** One bouquet per billing period, priced from the monthly price with a longer-term discount. */
function inAllPeriods(codeStem: string, name: string, monthly: number): CatalogueBouquet[] {
  return PERIODS.map((period) => ({
    code: `${codeStem}-${period.letter}`,
    name: `${name} (${period.suffix})`,
    price: roundToCents(monthly * period.factor),
  }));
}

const TV_BASE: ReadonlyArray<[string, string, number]> = [
  ["TV-BASIC", "Basic", 350],
  ["TV-SILVER", "Silver", 500],
  ["TV-GOLD", "Gold", 700],
  ["TV-PLATINUM", "Platinum", 950],
  ["TV-SILVER-HD", "Silver HD", 650],
  ["TV-GOLD-HD", "Gold HD", 900],
  ["TV-PLATINUM-HD", "Platinum HD", 1200],
];

const TV_ADD_ONS: ReadonlyArray<[string, string, number]> = [
  ["TV-ADD-SPORTS-HD", "Sports HD [AddOn]", 250],
  ["TV-ADD-MOVIES", "Movies [AddOn]", 200],
  ["TV-ADD-KIDS", "Kids [AddOn]", 65.5],
  ["TV-ADD-NEWS", "News Plus [AddOn]", 80],
  ["TV-ADD-HINDI", "Hindi Entertainment [AddOn]", 150],
  ["TV-ADD-MUSIC", "Music [AddOn]", 60],
  ["TV-ADD-DOCU-HD", "Documentary HD [AddOn]", 120],
  ["TV-ADD-REGIONAL", "Regional [AddOn]", 90],
];

export const LONG_TV_CODE =
  "TV-PROMO-DASHAIN-TIHAR-FESTIVAL-SPECIAL-ALL-CHANNELS-HD-BUNDLE-2025-MONTHLY-OFFER";
const LONG_TV_ADD_ON_CODE =
  "TV-ADDON-PREMIUM-INTERNATIONAL-SPORTS-ULTRA-HD-4K-CHANNEL-PACK-YEARLY-SUBSCRIPTION";
export const LONG_INTERNET_CODE =
  "NET-FIBER-1000MBPS-UNLIMITED-GAMING-STREAMING-PRIORITY-ROUTE-STATIC-IP-YEARLY-PLAN";

const TV_BOUQUETS: CatalogueBouquet[] = [
  ...TV_BASE.flatMap(([code, name, monthly]) => inAllPeriods(code, name, monthly)),
  ...TV_ADD_ONS.flatMap(([code, name, monthly]) => inAllPeriods(code, name, monthly)),
  { code: LONG_TV_CODE, name: "Festival Special HD Bundle (MONTHLY)", price: 1100 },
  {
    code: LONG_TV_ADD_ON_CODE,
    name: "International Sports Ultra HD [AddOn] (YEARLY)",
    price: 4999.99,
  },
];

const INTERNET_BOUQUETS: CatalogueBouquet[] = [
  ...inAllPeriods("NET-25M", "Fiber 25 Mbps", 565.5),
  ...inAllPeriods("NET-50M", "Fiber 50 Mbps", 800),
  ...inAllPeriods("NET-100M", "Fiber 100 Mbps", 1100),
  ...inAllPeriods("NET-200M", "Fiber 200 Mbps", 1500),
  ...inAllPeriods("NET-300M", "Fiber 300 Mbps", 2000),
  { code: LONG_INTERNET_CODE, name: "Fiber 1 Gbps Gamer Static IP (YEARLY)", price: 36000 },
];

const IPTV_BOUQUETS: CatalogueBouquet[] = [
  ...inAllPeriods("IPTV-BASIC", "IPTV Basic", 300),
  ...inAllPeriods("IPTV-PREMIUM", "IPTV Premium", 550),
];

export const CATALOGUE: Readonly<Record<ServiceKind, readonly CatalogueBouquet[]>> = {
  tv: TV_BOUQUETS,
  internet: INTERNET_BOUQUETS,
  iptv: IPTV_BOUQUETS,
};

export function findBouquet(service: ServiceKind, code: string): CatalogueBouquet | undefined {
  return CATALOGUE[service].find((bouquet) => bouquet.code === code);
}
