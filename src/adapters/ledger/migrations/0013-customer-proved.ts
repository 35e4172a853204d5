// How the buyer found the purchase's customer: proved theirs (their own shared contact, or a
// connection saved from one), or a code typed, which anyone may type. What the buyer is shown of
// the customer follows it wherever it appears (the invoice, the receipt, /history, the saved
// connection): in full when proved, masked otherwise. A purchase written before it was recorded
// reads as typed: masked.
import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

export const customerProved: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE purchases ADD COLUMN customer_proved boolean NOT NULL DEFAULT false`.execute(
      db,
    );
  },
};
