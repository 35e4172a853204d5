// An eSewa stack (PAYMENT_MODE=esewa) whose status checks go through a gateway of the test's own
// (loopback only), for tests that replace eSewa's answers; and a browser of the test's own that
// opens the bot's pay page and posts its form to the eSewa sandbox.
import type { Message } from "grammy/types";
import {
  createEsewaSandbox,
  type EsewaSandbox,
  TEST_PRODUCT_CODE,
  TEST_SECRET_KEY,
} from "../../tools/esewa-sandbox/server.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "./chat.js";
import { type GatewayProxy, startGatewayProxy } from "./gateway-proxy.js";
import { freePort } from "./ports.js";
import { type Stack, startStack } from "./stack.js";

export const ESEWA_SECRET = TEST_SECRET_KEY;
export const ESEWA_PRODUCT = TEST_PRODUCT_CODE;

/** The bot's pay page as a browser reads it: the form's action and fields, in order. */
interface PayPage {
  status: number;
  headers: Headers;
  html: string;
  action: string;
  fields: [string, string][];
}

interface EsewaLink {
  user: ChatUser;
  link: Message;
  /** The pay page's address (the chat's URL button). */
  payUrl: string;
  /** The transaction_uuid: the pay page's last path segment. */
  uuid: string;
}

export interface EsewaGateways {
  stack: Stack;
  esewa: EsewaSandbox;
  esewaGateway: GatewayProxy;
  /** The bot's PUBLIC_URL (its eSewa pages). */
  base: string;
  /** A new subscriber with an eSewa link for 1000001's Gold renewal in front of them. */
  withLink(id: number): Promise<EsewaLink>;
  /** GET the pay page and read its form. */
  openPayPage(payUrl: string): Promise<PayPage>;
  /** The browser posts the pay page's form to eSewa: the payment exists there from now on. */
  submit(page: PayPage): Promise<void>;
  /** The gateway passes everything through again; the sandboxes forget. */
  reset(): void;
  stop(): Promise<void>;
}

const INPUT = /<input type="hidden" name="([^"]*)" value="([^"]*)">/g;

const unescapeHtml = (text: string) =>
  text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");

export async function startEsewaGateways(
  name: string,
  env: Record<string, string>,
): Promise<EsewaGateways> {
  const esewa = await createEsewaSandbox();
  const esewaGateway = await startGatewayProxy(() => esewa.url);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const stack = await startStack(name, {
    PAYMENT_MODE: "esewa",
    ESEWA_PRODUCT_CODE: ESEWA_PRODUCT,
    ESEWA_SECRET_KEY: ESEWA_SECRET,
    // The browser posts the form to the sandbox itself; the bot asks through the gateway.
    ESEWA_FORM_URL: esewa.formUrl,
    ESEWA_STATUS_URL: `${esewaGateway.url}/api/epay/transaction/status/`,
    PUBLIC_URL: base,
    HTTP_PORT: String(port),
    HTTP_HOST: "127.0.0.1",
    PAYMENT_CHECK_SECONDS: "1",
    // Every test's page hits come from 127.0.0.1: the per-client limit is the unit test's.
    RETURN_PAGE_LIMIT: "100000",
    ...env,
  });
  const started: Stack = stack;
  return {
    stack: started,
    esewa,
    esewaGateway,
    base,
    async withLink(id) {
      const user = started.emulator.user({ id, first_name: "Es", language_code: "en" });
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
      await expectReply(user, () => user.press(/Renew/), "Please confirm");
      const link = await expectReply(user, () => user.press(/Pay NPR/), "with eSewa");
      const button = link.reply_markup?.inline_keyboard
        .flat()
        .find((candidate) => "url" in candidate);
      const payUrl = button && "url" in button ? (button.url ?? "") : "";
      return { user, link, payUrl, uuid: payUrl.split("/").at(-1) ?? "" };
    },
    async openPayPage(payUrl) {
      const response = await fetch(payUrl);
      const html = await response.text();
      const action = /<form method="post" action="([^"]*)">/.exec(html)?.[1] ?? "";
      const fields = [...html.matchAll(INPUT)].map(
        ([, field = "", value = ""]) => [field, unescapeHtml(value)] as [string, string],
      );
      return {
        status: response.status,
        headers: response.headers,
        html,
        action: unescapeHtml(action),
        fields,
      };
    },
    async submit(page) {
      const response = await fetch(page.action, {
        method: "POST",
        body: new URLSearchParams(page.fields),
        redirect: "manual",
      });
      await response.arrayBuffer();
      if (response.status !== 302) throw new Error(`eSewa refused the form: ${response.status}`);
    },
    reset() {
      esewaGateway.handle = (_, forward) => forward();
      started.sandbox.reset();
      esewa.faults.clear();
    },
    async stop() {
      await started.stop();
      await esewaGateway.close();
      await esewa.close();
    },
  };
}
