// A Khalti stack with a gateway of the test's own in front of the provider and one in front of
// Khalti (loopback only), for tests that hold, alter or replace their answers.

import { createKhaltiSandbox, type KhaltiSandbox } from "../../tools/khalti-sandbox/server.js";
import type { KhaltiSandboxOptions } from "../../tools/khalti-sandbox/types.js";
import type { ChatUser } from "../../tools/telegram-emulator/index.js";
import { expectReply } from "./chat.js";
import { type GatewayProxy, startGatewayProxy } from "./gateway-proxy.js";
import { freePort } from "./ports.js";
import { type Stack, startStack } from "./stack.js";

export interface KhaltiGateways {
  stack: Stack;
  khalti: KhaltiSandbox;
  providerGateway: GatewayProxy;
  khaltiGateway: GatewayProxy;
  /** The bot's PUBLIC_URL (its return page). */
  base: string;
  /** A new subscriber with a Khalti payment link for 1000001's Gold renewal in front of them. */
  withLink(id: number): Promise<{ user: ChatUser; pidx: string }>;
  /** Both gateways pass everything through again; the sandboxes forget. */
  reset(): void;
  stop(): Promise<void>;
}

export async function startKhaltiGateways(
  name: string,
  secret: string,
  env: Record<string, string>,
  /** The sandbox's own settings (its clock, its links' lifetime). */
  sandbox: Omit<KhaltiSandboxOptions, "secretKey"> = {},
): Promise<KhaltiGateways> {
  const khalti = await createKhaltiSandbox({ ...sandbox, secretKey: secret });
  let stack: Stack | undefined;
  const khaltiGateway = await startGatewayProxy(() => khalti.url);
  const providerGateway = await startGatewayProxy(() => stack?.sandbox.baseUrl());
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  stack = await startStack(name, {
    PROVIDER_BASE_URL: providerGateway.url,
    // One method: the confirm screen's Pay button goes straight to its link.
    PAYMENT_MODE: "",
    PAYMENT_METHODS: "khalti",
    KHALTI_SECRET_KEY: secret,
    KHALTI_BASE_URL: khaltiGateway.url,
    PUBLIC_URL: base,
    HTTP_PORT: String(port),
    HTTP_HOST: "127.0.0.1",
    PAYMENT_CHECK_SECONDS: "1",
    ...env,
  });
  const started = stack;
  return {
    stack: started,
    khalti,
    providerGateway,
    khaltiGateway,
    base,
    async withLink(id) {
      const user = started.emulator.user({ id, first_name: "Gw", language_code: "en" });
      await expectReply(user, () => user.sendText("/topup 1000001"), "Choose a package");
      await expectReply(user, () => user.press(/Renew/), "Please confirm");
      await expectReply(user, () => user.press(/Pay NPR/), "with Khalti");
      return { user, pidx: khalti.payments().at(-1)?.pidx ?? "" };
    },
    reset() {
      providerGateway.handle = (_, forward) => forward();
      khaltiGateway.handle = (_, forward) => forward();
      started.sandbox.reset();
      khalti.faults.clear();
    },
    async stop() {
      await started.stop();
      await providerGateway.close();
      await khaltiGateway.close();
      await khalti.close();
    },
  };
}
