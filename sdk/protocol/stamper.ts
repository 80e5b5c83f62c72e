/**
 * @module protocol/stamper
 * What the request pipeline needs from a credential: a header that authenticates the exact
 * body bytes. API keys (`X-Stamp`) implement it in `api-key-stamper.ts`; other credentials
 * (WebAuthn, session keys) can implement it too.
 */

/** A signed header for one request body. */
export interface StampHeader {
  /** Header name, e.g. `X-Stamp` or `X-Stamp-WebAuthn`. */
  readonly name: string;
  readonly value: string;
}

/** Signs request bodies. `body` is the exact string that will be sent. */
export interface Stamper {
  stamp(body: string): StampHeader | Promise<StampHeader>;
}
