// Fonepay's merchant API over HTTP (through the product's HTTP client): the QR request and the
// status call, each a JSON POST with the merchant's code, username and password (never logged)
// and its dataValidation.
import { type HttpPool, httpPool } from "../../http-client.js";
import { type HexCase, qrRequestSignature, statusSignature } from "./fonepay-signature.js";
import {
  parseFonepayJson,
  readQrAnswer,
  readStatusAnswer,
  type StatusAnswer,
} from "./fonepay-wire.js";

export interface FonepayClientOptions {
  merchantCode: string;
  username: string;
  password: string;
  secretKey: string;
  /** The API's root (…/api), no trailing slash. */
  apiUrl: string;
  signatureCase: HexCase;
  timeoutMs: number;
}

const QR_PATH = "/merchant/merchantDetailsForThirdParty/thirdPartyDynamicQrDownload";
const STATUS_PATH = "/merchant/merchantDetailsForThirdParty/thirdPartyDynamicQrGetStatus";

/** Fonepay's own refusal of a request (errorCode 406…): its code and message, no secrets. */
export class FonepayRefusedError extends Error {
  override name = "FonepayRefusedError";
  constructor(
    readonly code: string,
    readonly fonepayMessage: string,
  ) {
    super(`Fonepay refused the request (${code}: ${fonepayMessage})`);
  }
}

/** No answer of Fonepay's could be read: nothing is known. */
class FonepayUnavailableError extends Error {
  override name = "FonepayUnavailableError";
}

export class FonepayClient {
  private readonly pool: HttpPool;
  private readonly base: string;

  constructor(private readonly options: FonepayClientOptions) {
    const url = new URL(options.apiUrl);
    this.base = url.pathname.replace(/\/+$/, "");
    this.pool = httpPool(url.origin, {
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  private get credentials() {
    const { merchantCode, username, password } = this.options;
    return { merchantCode, username, password };
  }

  async createQr(values: { amount: string; prn: string; remarks1: string; remarks2: string }) {
    const { secretKey, merchantCode, signatureCase } = this.options;
    const dataValidation = qrRequestSignature(
      secretKey,
      { ...values, merchantCode },
      signatureCase,
    );
    const { status, body } = await this.post(QR_PATH, {
      ...values,
      ...this.credentials,
      dataValidation,
    });
    const answer = readQrAnswer(status, body);
    if (answer.kind === "created") return answer;
    if (answer.kind === "refused") throw new FonepayRefusedError(answer.code, answer.message);
    throw new FonepayUnavailableError(`the QR request answered ${status}`);
  }

  async status(prn: string): Promise<StatusAnswer> {
    const { secretKey, merchantCode, signatureCase } = this.options;
    const dataValidation = statusSignature(secretKey, { prn, merchantCode }, signatureCase);
    const { status, body } = await this.post(STATUS_PATH, {
      prn,
      ...this.credentials,
      dataValidation,
    });
    return readStatusAnswer(status, body, prn, merchantCode);
  }

  private async post(path: string, payload: object): Promise<{ status: number; body: unknown }> {
    try {
      const response = await this.pool.request({
        method: "POST",
        path: `${this.base}${path}`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
      const body = parseFonepayJson(await response.body.text());
      return { status: response.statusCode, body };
    } catch (error) {
      // The error's own words only (a connection refused, a timeout): never the request.
      throw new FonepayUnavailableError(error instanceof Error ? error.name : "request failed");
    }
  }
}
