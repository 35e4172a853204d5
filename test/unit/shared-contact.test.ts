// A contact proves the sender's own number only when it names the sender and is sent as theirs.
import { describe, expect, it } from "vitest";
import type { FlowContext } from "../../src/bot/context.js";
import { sharedContact } from "../../src/bot/features/topup/identify.js";

const SENDER = 4711;
const contactMessage = (extra: Record<string, unknown> = {}, userId: number | null = SENDER) =>
  ({
    from: { id: SENDER },
    message: {
      contact: { phone_number: "9851000002", first_name: "Sita", user_id: userId ?? undefined },
      ...extra,
    },
  }) as unknown as FlowContext;

describe("a shared contact", () => {
  it("is the sender's number when it names them and they sent it", () => {
    expect(sharedContact(contactMessage())).toEqual({
      code: "9851000002",
      proved: true,
      contact: true,
    });
  });

  it("is someone else's when it names another user, or nobody", () => {
    expect(sharedContact(contactMessage({}, SENDER + 1))).toBe("not-own");
    expect(sharedContact(contactMessage({}, null))).toBe("not-own");
  });

  // Review of #40's shared number, finding 4.
  it("is no proof when forwarded or sent through a bot, even naming the sender", () => {
    const forwarded = { forward_origin: { type: "user", date: 1, sender_user: { id: SENDER } } };
    expect(sharedContact(contactMessage(forwarded))).toBe("not-own");
    expect(sharedContact(contactMessage({ via_bot: { id: 99, is_bot: true } }))).toBe("not-own");
  });
});
