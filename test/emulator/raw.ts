/**
 * Raw HTTP helpers for emulator tests that must send what the typed client refuses to send
 * (malformed bodies, forged stamps, stale timestamps).
 */
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import type { Bootstrap } from "../../sdk/emulator";

export interface RawResponse {
  status: number;
  body: any;
}

/** Stamper of the bootstrap key. */
export function rootStamper(bootstrap: Bootstrap): ApiKeyStamper {
  return new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey });
}

/**
 * POSTs `body` (a string is sent as is) to `url + path`, stamped by `stamper` unless it is
 * null; `headers` are added (and can override the stamp).
 */
export async function post(
  url: string,
  path: string,
  body: unknown,
  stamper: ApiKeyStamper | null,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const stamp = stamper ? await stamper.stamp(text) : undefined;
  const response = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(stamp ? { [stamp.name]: stamp.value } : {}), ...headers },
    body: text,
  });
  const raw = await response.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // keep the text
  }
  return { status: response.status, body: parsed };
}

/** A submit envelope for `type` with the current time. */
export function envelope(type: string, organizationId: string, parameters: unknown, timestampMs = Date.now()) {
  return { type, timestampMs: String(timestampMs), organizationId, parameters };
}
