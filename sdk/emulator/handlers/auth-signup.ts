/**
 * @module emulator/handlers/auth-signup
 * `signup_v2` (spec 4.2): a new sub-organization of the auth proxy's parent organization with
 * its root user (name, e-mail, E.164 phone, a user tag), API keys on all three curves, passkeys
 * (attestation parsed, credential public key kept so the passkey can stamp), OAuth providers
 * (issuer, subject, audience) and optionally an HD wallet from a fresh mnemonic.
 *
 * A `verificationToken`, when given, must be one this emulator issued, unexpired, for the
 * e-mail or phone of the request; it is not consumed (clients log in with it afterwards). If
 * it binds a public key, `clientSignature` is required, must be made with that key and, when
 * its message is a usage statement, name the token's id.
 */
import { createHash } from "node:crypto";
import { addressDerivationPayload, createAppProof, CryptoError, parseWebAuthnRegistration, policyOutcomePayload, type AppProof } from "keyform/crypto";
import { invalidArgument, unauthenticated } from "../errors";
import { authStoreOf } from "../store/auth-store";
import { createWalletWithAccounts } from "../store/wallets";
import { insertApiKeys } from "./api-keys";
import { authProxyConfig, clientSignatureValid, contactKind, sameContact, signedUsage } from "./auth-common";
import { insertOauthProviders } from "./oauth-providers";
import { readVerificationToken } from "./auth-tokens";
import { newId } from "./common";
import type { ActivityContext, AuthProxyContext, HandlerOf } from "./types";

type SignupRequest = Parameters<HandlerOf<"signupV2">>[1];

/** Checks the optional verification token and client signature of a sign-up. */
function checkVerification(ctx: AuthProxyContext, p: SignupRequest): void {
  if (p.clientSignature !== undefined && !clientSignatureValid(p.clientSignature)) {
    throw unauthenticated("clientSignature: the signature does not verify over the message with the public key");
  }
  if (p.verificationToken === undefined) return;
  const claims = readVerificationToken(p.verificationToken, ctx.signer, ctx.nowMs);
  const kind = contactKind(claims.verification_type);
  const given = kind === "email" ? p.userEmail : p.userPhoneNumber;
  if (!sameContact(kind, given, claims.contact)) {
    const field = kind === "email" ? "userEmail" : "userPhoneNumber";
    throw invalidArgument(`verificationToken: it verifies ${claims.contact}, which is not the ${field} of the request`);
  }
  if (claims.public_key === undefined) return;
  if (p.clientSignature === undefined) {
    throw invalidArgument("clientSignature: required because the verification token binds a public key");
  }
  if (p.clientSignature.publicKey.toLowerCase() !== claims.public_key.toLowerCase()) {
    throw unauthenticated("clientSignature.publicKey: does not equal the public key bound in the verification token");
  }
  const usage = signedUsage(p.clientSignature.message);
  if (usage?.tokenId !== undefined && usage.tokenId !== claims.id) {
    throw unauthenticated("clientSignature.message: signed for another verification token");
  }
  if (usage?.type !== undefined && usage.type !== "USAGE_TYPE_SIGNUP") {
    throw unauthenticated(`clientSignature.message: usage type ${JSON.stringify(usage.type)} is not USAGE_TYPE_SIGNUP`);
  }
}

/** The sign-up handler. */
export const signupV2: HandlerOf<"signupV2"> = (ctx, p) => {
  checkVerification(ctx, p);
  const { parentOrganizationId } = authProxyConfig(ctx.store);
  const organizationId = newId();
  const userId = newId();
  const userName = p.userName ?? p.userEmail ?? p.userPhoneNumber ?? "Root user";
  ctx.store.organizations.insert({
    id: organizationId,
    name: p.organizationName ?? `${userName}'s organization`,
    parent_id: parentOrganizationId,
    root_quorum_json: JSON.stringify({ threshold: 1, userIds: [userId] }),
    created_ms: ctx.nowMs,
  });
  ctx.store.users.insert({
    id: userId,
    org_id: organizationId,
    name: userName,
    email: p.userEmail ?? null,
    phone_number: p.userPhoneNumber ?? null,
    created_ms: ctx.nowMs,
    updated_ms: ctx.nowMs,
  });
  if (p.userTag !== undefined) {
    if (p.userTag === "") throw invalidArgument("userTag: must not be empty");
    const tagId = newId();
    ctx.store.tags.insert({ id: tagId, org_id: organizationId, name: p.userTag, tag_type: "TAG_TYPE_USER", created_ms: ctx.nowMs, updated_ms: ctx.nowMs });
    ctx.store.users.addTag(userId, tagId);
  }

  // insertApiKeys reads only store, organizationId and nowMs of an activity context.
  const inOrg = { ...ctx, organizationId } as unknown as ActivityContext;
  insertApiKeys(inOrg, userId, p.apiKeys, "apiKeys");
  registerAuthenticators(ctx, p, organizationId, userId);
  insertOauthProviders(ctx, { organizationId, userId }, p.oauthProviders, "oauthProviders");

  const wallet = p.wallet
    ? createWalletWithAccounts(
        { db: ctx.db, signer: ctx.signer, nowMs: ctx.nowMs },
        {
          organizationId,
          walletName: p.wallet.walletName,
          mnemonicLength: p.wallet.mnemonicLength,
          accounts: p.wallet.accounts,
          fieldPrefix: "wallet.",
        },
      )
    : undefined;

  ctx.log.info({ organizationId, userId, parentOrganizationId }, "signup_v2 created a sub-organization");
  return {
    organizationId,
    userId,
    ...(wallet ? { wallet } : {}),
    ...(p.generateAppProofs === true ? { appProofs: signupProofs(ctx, p, organizationId, wallet) } : {}),
  };
};

/** Registers the passkeys: the core authenticator record plus the parsed credential key. */
function registerAuthenticators(ctx: AuthProxyContext, p: SignupRequest, organizationId: string, userId: string): void {
  const auth = authStoreOf(ctx.db);
  const seen = new Set<string>();
  p.authenticators.forEach((a, i) => {
    const at = `authenticators[${i}]`;
    let parsed;
    try {
      parsed = parseWebAuthnRegistration({
        attestationObject: a.attestation.attestationObject,
        clientDataJson: a.attestation.clientDataJson,
        credentialId: a.attestation.credentialId,
        expectedChallenge: a.challenge,
      });
    } catch (error) {
      const field = error instanceof CryptoError ? error.field : "attestation";
      const what = error instanceof Error ? error.message : "invalid attestation";
      const name = field === "challenge" ? `${at}.challenge` : `${at}.attestation.${field}`;
      throw invalidArgument(`${name}: ${what}`);
    }
    if (seen.has(parsed.credentialId) || auth.credentials(parsed.credentialId).length > 0) {
      throw invalidArgument(`${at}.attestation.credentialId: this credential is already registered`);
    }
    seen.add(parsed.credentialId);
    const id = newId();
    ctx.store.users.insertAuthenticator({
      id,
      org_id: organizationId,
      user_id: userId,
      name: a.authenticatorName,
      credential_id: a.attestation.credentialId,
      attestation_json: JSON.stringify(a.attestation),
      created_ms: ctx.nowMs,
      updated_ms: ctx.nowMs,
    });
    auth.insertCredential({
      authenticator_id: id,
      org_id: organizationId,
      user_id: userId,
      credential_id: parsed.credentialId,
      public_key: parsed.publicKey,
      created_ms: ctx.nowMs,
    });
  });
}

/** One policy-outcome proof for the sign-up and one address-derivation proof per account. */
function signupProofs(
  ctx: AuthProxyContext,
  p: SignupRequest,
  organizationId: string,
  wallet: { walletId: string; addresses: string[] } | undefined,
): AppProof[] {
  // The proxy has no activity fingerprint; the digest of the validated request stands in.
  const digest = `sha256:${createHash("sha256").update(JSON.stringify(p)).digest("hex")}`;
  const proofs = [createAppProof(policyOutcomePayload({ organizationId, decisionContextDigest: digest, timestampMs: ctx.nowMs }))];
  if (wallet && p.wallet) {
    wallet.addresses.forEach((address, i) => {
      const account = p.wallet?.accounts[i];
      if (!account) return;
      proofs.push(
        createAppProof(
          addressDerivationPayload({ organizationId, walletId: wallet.walletId, derivationPath: account.path, address, timestampMs: ctx.nowMs }),
        ),
      );
    });
  }
  return proofs;
}
