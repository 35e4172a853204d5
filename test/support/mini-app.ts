// The Mini App's API as its page calls it: initData signed by the bot's token, sent as
// `Authorization: tma <initData>`.
import { sign } from "@telegram-apps/init-data-node";
import { BOT_TOKEN } from "./stack.js";

/** Telegram's initData for this user, signed `ageSeconds` ago (by another bot's `token`). */
export const initDataOf = (id: number, ageSeconds = 0, token = BOT_TOKEN) =>
  sign(
    { user: { id, first_name: "App", language_code: "en" } },
    token,
    new Date(Date.now() - ageSeconds * 1000),
  );

export interface AppCall {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** One call to the API under `base` with `initData` as the page sends it (none: no header). */
export async function appApi(
  base: string,
  path: string,
  initData: string | undefined,
  body?: Record<string, unknown>,
): Promise<AppCall> {
  const response = await fetch(`${base}/app/api/${path}`, {
    method: body ? "POST" : "GET",
    headers: {
      ...(initData !== undefined && { authorization: `tma ${initData}` }),
      ...(body && { "content-type": "application/json" }),
    },
    ...(body && { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}
