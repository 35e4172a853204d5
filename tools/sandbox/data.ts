// Deterministic seed of the test customers. Subscription ends are given in days relative
// to the sandbox clock's current day, so the same clock always yields the same data and
// the mix of expired / ending soon / long-running subscriptions never goes stale.

import { LONG_INTERNET_CODE, LONG_TV_CODE } from "./bouquets.js";
import type { ServiceKind } from "./types.js";

type Status = "active" | "inactive";

interface SubscriptionSeed {
  code: string;
  /** End of that day (23:59:59 in the sandbox zone), counted from today; negative = expired. */
  endsInDays: number;
}

interface ConnectionSeed {
  service: ServiceKind;
  /** STB number (tv) or username (internet, iptv). */
  id: string;
  status: Status;
  subscriptions: SubscriptionSeed[];
}

export interface CustomerSeed {
  cuid: string;
  firstName: string;
  lastName: string;
  status: Status;
  /** 10 digits starting 98; lookups also accept it with 977 / +977 and separators. */
  mobile: string;
  note: string;
  connections: ConnectionSeed[];
}

const connectionOf =
  (service: ServiceKind) =>
  (id: string, status: Status, subscriptions: SubscriptionSeed[]): ConnectionSeed => ({
    service,
    id,
    status,
    subscriptions,
  });
const tv = connectionOf("tv");
const internet = connectionOf("internet");
const iptv = connectionOf("iptv");

export const CUSTOMER_SEEDS: readonly CustomerSeed[] = [
  {
    cuid: "1000001",
    firstName: "Ram",
    lastName: "Thapa",
    status: "active",
    mobile: "9841000001",
    note: "One TV connection; Gold monthly ends in 2 days.",
    connections: [tv("8000000011", "active", [{ code: "TV-GOLD-M", endsInDays: 2 }])],
  },
  {
    cuid: "1000002",
    firstName: "Sita",
    lastName: "Sharma",
    status: "active",
    mobile: "9851000002",
    note: "Three TV connections (two active, one inactive); yearly HD plus an expired add-on.",
    connections: [
      tv("8000000021", "active", [
        { code: "TV-GOLD-HD-Y", endsInDays: 120 },
        { code: "TV-ADD-SPORTS-HD-M", endsInDays: -5 },
      ]),
      tv("8000000022", "active", [{ code: "TV-SILVER-M", endsInDays: -10 }]),
      tv("8000000023", "inactive", [{ code: "TV-BASIC-Q", endsInDays: -60 }]),
    ],
  },
  {
    cuid: "1000003",
    firstName: "Hari",
    lastName: "Gurung",
    status: "active",
    mobile: "9801000003",
    note: "Internet only; 100 Mbps quarterly ends tomorrow.",
    connections: [internet("hari.gurung", "active", [{ code: "NET-100M-Q", endsInDays: 1 }])],
  },
  {
    cuid: "1000004",
    firstName: "Gita",
    lastName: "Karki",
    status: "active",
    mobile: "9861000004",
    note: "TV (Platinum yearly, months left) and internet (expired 3 days ago).",
    connections: [
      tv("8000000041", "active", [{ code: "TV-PLATINUM-Y", endsInDays: 200 }]),
      internet("gita.karki", "active", [{ code: "NET-50M-M", endsInDays: -3 }]),
    ],
  },
  {
    cuid: "1000005",
    firstName: "Bikash",
    lastName: "Rai",
    status: "active",
    mobile: "9811000005",
    note: "IPTV ending today and internet with a decimal-priced half-yearly plan.",
    connections: [
      iptv("bikash.iptv", "active", [{ code: "IPTV-PREMIUM-M", endsInDays: 0 }]),
      internet("bikash.rai", "active", [{ code: "NET-25M-H", endsInDays: 90 }]),
    ],
  },
  {
    cuid: "1000006",
    firstName: "Maya",
    lastName: "Tamang",
    status: "inactive",
    mobile: "9841000006",
    note: "Inactive customer with an inactive TV connection, long expired.",
    connections: [tv("8000000061", "inactive", [{ code: "TV-BASIC-M", endsInDays: -45 }])],
  },
  {
    cuid: "1000007",
    firstName: "Anil",
    lastName: "Shrestha",
    status: "active",
    mobile: "9841000007",
    note: "No connections at all.",
    connections: [],
  },
  {
    cuid: "1000008",
    firstName: "Seán",
    lastName: "O'Brien <Ltd> & Sons",
    status: "active",
    mobile: "9851000008",
    note: "HTML special characters in the name; subscribed to a bouquet with a >64-byte code.",
    connections: [
      tv("8000000081", "active", [
        { code: LONG_TV_CODE, endsInDays: 2 },
        { code: "TV-ADD-KIDS-M", endsInDays: 25 },
      ]),
    ],
  },
  {
    cuid: "1000009",
    firstName: "Puja",
    lastName: "Adhikari",
    status: "active",
    mobile: "9861000009",
    note: "Two internet usernames (one inactive) and a TV connection without subscriptions.",
    connections: [
      internet("puja.adhikari", "active", [{ code: "NET-25M-M", endsInDays: 2 }]),
      internet("puja.old", "inactive", [{ code: "NET-50M-Y", endsInDays: -100 }]),
      tv("8000000091", "active", []),
    ],
  },
  {
    cuid: "1000010",
    firstName: "Kiran",
    lastName: "Magar",
    status: "active",
    mobile: "9801000010",
    note: "All three services; internet on a >64-byte code, IPTV inactive and expired.",
    connections: [
      tv("8000000101", "active", [{ code: "TV-SILVER-HD-H", endsInDays: 60 }]),
      internet("kiran.magar", "active", [{ code: LONG_INTERNET_CODE, endsInDays: 300 }]),
      iptv("kiran.iptv", "inactive", [{ code: "IPTV-BASIC-Q", endsInDays: -20 }]),
    ],
  },
];
