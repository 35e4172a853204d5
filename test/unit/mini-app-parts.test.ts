// The Mini App's pure parts: who initData names (the library's check with our age), and the ways
// to pay kept for the app's request (taken once, forgotten after a minute).
import { sign } from "@telegram-apps/init-data-node";
import { describe, expect, it } from "vitest";
import { userOfInitData } from "../../src/adapters/http/init-data.js";
import { ShownLinks } from "../../src/bot/features/payments/payment-links.js";

const TOKEN = "1234:unit-token";
type SignedUser = { id: number; first_name: string; language_code?: string };
const signed = (user: SignedUser | undefined, ageSeconds = 0, token = TOKEN) =>
  sign(user ? { user } : {}, token, new Date(Date.now() - ageSeconds * 1000));

describe("userOfInitData", () => {
  it("names the user Telegram signed for, with their language", () => {
    expect(
      userOfInitData(signed({ id: 42, first_name: "A", language_code: "ne" }), TOKEN, 60),
    ).toEqual({ id: 42, languageCode: "ne" });
  });

  it("names nobody for nothing, another bot's signature, an old one, or no user", () => {
    expect(userOfInitData(undefined, TOKEN, 60)).toBeNull();
    expect(userOfInitData("", TOKEN, 60)).toBeNull();
    expect(userOfInitData("user=%7B%22id%22%3A1%7D&hash=00", TOKEN, 60)).toBeNull();
    expect(userOfInitData(signed({ id: 42, first_name: "A" }, 0, "9:other"), TOKEN, 60)).toBeNull();
    expect(userOfInitData(signed({ id: 42, first_name: "A" }, 120), TOKEN, 60)).toBeNull();
    expect(userOfInitData(signed(undefined), TOKEN, 60)).toBeNull();
    expect(userOfInitData(signed({ id: -5, first_name: "A" }), TOKEN, 60)).toBeNull();
  });
});

describe("ShownLinks", () => {
  it("gives a way once, and none after a minute", () => {
    let now = 1_000_000;
    const links = new ShownLinks(() => now);
    links.remember("p1", { link: "https://pay/1" });
    links.remember("p2", { qr: "data:image/png;base64,AAAA" });
    expect(links.take("p1")).toEqual({ link: "https://pay/1" });
    expect(links.take("p1")).toBeUndefined();
    now += 60_001;
    expect(links.take("p2")).toBeUndefined();
  });
});
