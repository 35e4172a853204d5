// The subscriber registry: everyone who talked to the bot in private, and whether
// announcements may reach them. Broadcast audiences are chosen from it.
import type { ServiceKind } from "./model.js";

export interface Subscriber {
  id: number;
  language: string;
  firstSeen: number;
  lastSeen: number;
  services: ServiceKind[];
  /** Announcements wanted (/stop turns this off, /start on again). */
  subscribed: boolean;
  /** Reachable (false after the user blocked the bot). */
  active: boolean;
}

export type Audience =
  | { kind: "everyone" }
  | { kind: "language"; language: string }
  | { kind: "service"; service: ServiceKind };

export interface SubscriberStore {
  /** Records a private contact. */
  seen(id: number, language: string, now: number): Promise<void>;
  setSubscribed(id: number, subscribed: boolean): Promise<void>;
  setActive(id: number, active: boolean): Promise<void>;
  noteService(id: number, service: ServiceKind): Promise<void>;
  get(id: number): Promise<Subscriber | null>;
  /** Everyone ever seen, in id order. */
  all(): Promise<Subscriber[]>;
}

/** Everyone the audience covers who is subscribed and reachable, in id order. */
export async function audienceOf(
  store: SubscriberStore,
  audience: Audience,
): Promise<Subscriber[]> {
  return (await store.all()).filter((subscriber) => {
    if (!(subscriber.subscribed && subscriber.active)) return false;
    if (audience.kind === "language") return subscriber.language === audience.language;
    if (audience.kind === "service") return subscriber.services.includes(audience.service);
    return true;
  });
}
