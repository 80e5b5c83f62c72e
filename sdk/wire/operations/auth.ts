/**
 * @module wire/operations/auth
 * End-user authentication: the authentication proxy's sign-up and OTP login (spec 4.2, served
 * at `{auth_url}/v1/...`, no stamp) and the `otp_auth` activity (spec 4.4).
 */
import { z } from "zod";
import { defineActivity, defineAuthProxy } from "../define";
import { AppProof, ClientSignature, E164PhoneNumber, Id, opt, optId, Uint64String } from "../shared";
import { ApiKeyParams } from "./api-keys";
import { AuthenticatorParams, OauthProviderParams } from "./users";
import { WalletParams, WalletResult } from "./wallets";

/** The header every authentication proxy request carries (spec 5.3). */
export const AUTH_PROXY_CONFIG_HEADER = "X-Auth-Proxy-Config-Id";

export const signupV2 = defineAuthProxy("signup_v2", {
  request: z.object({
    userEmail: opt(z.string()),
    userPhoneNumber: opt(E164PhoneNumber),
    userTag: opt(z.string()),
    userName: opt(z.string()),
    organizationName: opt(z.string()),
    verificationToken: opt(z.string()),
    // The three lists are required; an unused one is sent as [].
    apiKeys: z.array(ApiKeyParams),
    authenticators: z.array(AuthenticatorParams),
    oauthProviders: z.array(OauthProviderParams),
    wallet: opt(WalletParams),
    clientSignature: opt(ClientSignature),
    /**
     * Not in the service's sign-up body: asks the emulator for `appProofs` (one policy-outcome
     * proof for the sign-up and one address-derivation proof per wallet account), as
     * `generateAppProofs` does for activities.
     */
    generateAppProofs: opt(z.boolean()),
  }),
  response: z.object({
    organizationId: z.string(),
    wallet: opt(WalletResult),
    /** Root user of the new organization. */
    userId: z.string(),
    appProofs: opt(z.array(AppProof)),
  }),
});

export const otpLoginV2 = defineAuthProxy("otp_login_v2", {
  request: z.object({
    verificationToken: Id,
    /** Becomes the session public key on success. */
    publicKey: Id,
    /** Its public key must equal the one inside the verification token. */
    clientSignature: ClientSignature,
    /** True invalidates every other login session generated earlier. */
    invalidateExisting: opt(z.boolean()),
    /** When omitted, the organization is found from the token's contact and verification type. */
    organizationId: optId(),
  }),
  response: z.object({
    /** Holds expiry, public key, session type, user id and organization id. */
    session: z.string(),
  }),
});

export const otpAuth = defineActivity("otp_auth", {
  type: "ACTIVITY_TYPE_OTP_AUTH",
  intentKey: "otpAuthIntent",
  resultKey: "otpAuthResult",
  parameters: z.object({
    /** Result of an earlier OTP initiation. */
    otpId: Id,
    /** The code sent to the user's e-mail or phone. */
    otpCode: Id,
    /** Client public key the credential bundle is encrypted to. */
    targetPublicKey: Id,
    /** Default: "OTP Auth" followed by a timestamp. */
    apiKeyName: opt(z.string()),
    /** Default 900 (15 minutes). */
    expirationSeconds: opt(Uint64String),
    /** True invalidates OTP-auth API keys created earlier. */
    invalidateExisting: opt(z.boolean()),
  }),
  result: z.object({
    userId: z.string(),
    apiKeyId: opt(z.string()),
    /** HPKE-encrypted credential bundle. */
    credentialBundle: opt(z.string()),
  }),
});

/** How a one-time code is delivered (`otpType` of otp_init). */
export const OtpType = z.enum(["OTP_TYPE_EMAIL", "OTP_TYPE_SMS"]);
export type OtpType = z.infer<typeof OtpType>;

/**
 * `POST {auth_url}/v1/otp_init` (docs/service-facts.md#7-base-urls-and-the-auth-proxy; `ProxyTInitOtpBody`): sends a one-time code to
 * an e-mail address or phone number.
 */
export const otpInit = defineAuthProxy("otp_init", {
  request: z.object({
    otpType: OtpType,
    /** The e-mail address or E.164 phone number the code goes to. */
    contact: Id,
    /** Customisation of the e-mail; accepted and ignored by the emulator. */
    emailCustomization: opt(z.record(z.string(), z.unknown())),
  }),
  response: z.object({
    /** Identifies this OTP in otp_verify and otp_auth. */
    otpId: z.string(),
  }),
});

/**
 * `POST {auth_url}/v1/otp_verify` (`ProxyTVerifyOtpBody`): exchanges the code for a signed
 * verification token.
 */
export const otpVerify = defineAuthProxy("otp_verify", {
  request: z.object({
    otpId: Id,
    otpCode: Id,
    /** Client key bound into the token; otp_login_v2's clientSignature must be made with it. */
    publicKey: optId(),
  }),
  response: z.object({
    /** Signed token holding id, expiry, verification type, contact and the bound public key. */
    verificationToken: z.string(),
  }),
});

export const authOperations = { signupV2, otpInit, otpVerify, otpLoginV2, otpAuth };
