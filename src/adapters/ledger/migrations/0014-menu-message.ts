// The buyer's menu that still offers other ways to pay for a purchase, where several are
// offered (a message of their chat, opaque here): once the purchase is paid or ends, whichever
// instance learns it takes those buttons away, so that none is left that leads nowhere.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

export const menuMessage: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE purchases ADD COLUMN menu_message text`.execute(db);
  },
};
