/**
 * @module emulator/handlers/oauth-providers
 * OAuth providers of a user, as `create_users` and `signup_v2` both register them.
 */
import type { OauthProviderParams } from "keyform/wire/operations/users";
import { invalidArgument } from "../errors";
import { newId } from "./common";
import type { ActivityContext } from "./types";

/**
 * Issuer, audience and subject of an OAuth provider, from its claims or its OIDC token (a JWT
 * or the base64 of one). The emulator reads the claims without checking the token's signature.
 * @throws EmulatorError 400 naming `field`
 */
export function oidcIdentity(p: OauthProviderParams, field: string): { iss: string; aud: string; sub: string } {
  if (p.oidcClaims) return p.oidcClaims;
  if (p.oidcToken) {
    try {
      const jwt = p.oidcToken.includes(".") ? p.oidcToken : Buffer.from(p.oidcToken, "base64").toString("utf8");
      const payload = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
      const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
      if (typeof payload.iss === "string" && typeof aud === "string" && typeof payload.sub === "string") {
        return { iss: payload.iss, aud, sub: payload.sub };
      }
    } catch {
      // reported below
    }
    throw invalidArgument(`${field}.oidcToken: not an OIDC token with iss, aud and sub claims`);
  }
  throw invalidArgument(`${field}: give oidcClaims or oidcToken`);
}

/**
 * Stores a user's OAuth providers; `field` is the request path of the list, for messages
 * (e.g. `parameters.users[0].oauthProviders`).
 */
export function insertOauthProviders(
  ctx: Pick<ActivityContext, "store" | "nowMs">,
  owner: { organizationId: string; userId: string },
  providers: readonly OauthProviderParams[],
  field: string,
): void {
  providers.forEach((provider, i) => {
    const claims = oidcIdentity(provider, `${field}[${i}]`);
    ctx.store.users.insertOauthProvider({
      id: newId(),
      org_id: owner.organizationId,
      user_id: owner.userId,
      name: provider.providerName,
      issuer: claims.iss,
      audience: claims.aud,
      subject: claims.sub,
      created_ms: ctx.nowMs,
      updated_ms: ctx.nowMs,
    });
  });
}
