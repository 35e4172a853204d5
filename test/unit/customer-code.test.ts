import { describe, expect, it } from "vitest";
import { normalizeCustomerCode } from "../../src/domain/customer-code.js";

describe("normalizeCustomerCode", () => {
  it.each([
    ["9841000001", "9841000001"],
    ["  9841000001 ", "9841000001"],
    ["+977 984-100-0001", "9841000001"],
    ["9779841000001", "9841000001"],
    ["(984) 100 0001", "9841000001"],
    ["1000001", "1000001"],
    ["8000000011", "8000000011"],
    ["hari.gurung", "hari.gurung"],
    ["user_01@isp", "user_01@isp"],
  ])("accepts %j as %j", (input, code) => {
    expect(normalizeCustomerCode(input)).toEqual({ ok: true, code });
  });

  it.each([
    "",
    "   ",
    "hi",
    "1234",
    "hello world",
    "<script>",
    "x".repeat(65),
    "1".repeat(21),
    "-hari",
  ])("refuses %j", (input) => {
    expect(normalizeCustomerCode(input)).toEqual({ ok: false });
  });
});
