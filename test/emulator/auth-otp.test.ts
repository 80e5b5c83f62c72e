/**
 * The OTP flows over real HTTP: otp_init → outbox → otp_verify → signup_v2 / otp_login_v2 →
 * session key stamping, and the otp_auth activity with its HPKE credential bundle (decrypted
 * with the official @turnkey/crypto). Expiry is tested by moving the clock the emulator and
 * the client share (they run in this process; only `Date` is faked).
 */
import { decryptCredentialBundle as officialDecrypt, verifyOtpVerificationToken, verifySessionJwtSignature } from "@turnkey/crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  ApiKeyStamper,
  AuthenticationError,
  AuthProxyClient,
  BadRequestError,
  ConflictError,
  decodeVerificationToken,
  generateApiKeyPair,
  KeyformClient,
  NotFoundError,
  otpLoginClientSignature,
  parseSession,
  publicKeyFromPrivateKey,
  sessionStamper,
  signClientMessage,
  signupClientSignature,
  stamperFromCredentialBundle,
  type Stamper,
} from "../../sdk/client";
import { verifySessionToken, verifyVerificationToken } from "../../sdk/crypto";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { post } from "./raw";

let t: TestEmulator;
let proxy: AuthProxyClient;
let counter = 0;

beforeAll(async () => {
  t = await startTestEmulator();
  proxy = new AuthProxyClient({ authProxyUrl: t.emulator.authProxyUrl, authProxyConfigId: t.emulator.bootstrap.authProxyConfigId });
});
afterAll(async () => {
  await t.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

function clientFor(organizationId: string, stamper: Stamper): KeyformClient {
  return new KeyformClient({ baseUrl: t.emulator.url, organizationId, stamper, poll: { intervalMs: 20 }, retry: { maxRetries: 0 } });
}

const root = () => new ApiKeyStamper({ apiPublicKey: t.emulator.bootstrap.apiPublicKey, apiPrivateKey: t.emulator.bootstrap.apiPrivateKey });

/** The newest code sent to `contact`, read from the dev outbox. */
async function outboxCode(contact: string, otpId?: string): Promise<{ otpId: string; code: string; used: boolean }> {
  const res = await fetch(`${t.emulator.url}/_keyform/otp-outbox?contact=${encodeURIComponent(contact)}`);
  expect(res.status).toBe(200);
  const { messages } = (await res.json()) as { messages: { otpId: string; code: string; used: boolean; contact: string }[] };
  expect(messages.length).toBeGreaterThan(0);
  expect(messages.every((m) => m.contact.toLowerCase() === contact.toLowerCase())).toBe(true);
  return otpId === undefined ? messages[0]! : messages.find((m) => m.otpId === otpId)!;
}

/** otp_init + outbox + otp_verify binding `bindKey`; returns the verification token. */
async function verifyContact(contact: string, bindKey: { publicKey: string }, otpType: "OTP_TYPE_EMAIL" | "OTP_TYPE_SMS" = "OTP_TYPE_EMAIL"): Promise<string> {
  const { otpId } = await proxy.otpInit({ otpType, contact });
  const sent = await outboxCode(contact);
  expect(sent.otpId).toBe(otpId);
  expect(sent.code).toMatch(/^\d{6}$/);
  const { verificationToken } = await proxy.otpVerify({ otpId, otpCode: sent.code, publicKey: bindKey.publicKey });
  return verificationToken;
}

/** Signs a new end user up through the OTP flow; returns ids and the contact. */
async function signUpWithOtp(): Promise<{ organizationId: string; userId: string; email: string }> {
  const email = `user-${++counter}-${Date.now()}@example.com`;
  const bind = generateApiKeyPair();
  const verificationToken = await verifyContact(email, bind);
  const body = { userEmail: email, verificationToken, apiKeys: [], authenticators: [], oauthProviders: [] };
  const { organizationId, userId } = await proxy.signupV2({ ...body, clientSignature: signupClientSignature({ verificationToken, body, privateKeyHex: bind.privateKey }) });
  return { organizationId, userId, email };
}

/** Logs in through otp_verify + otp_login_v2; returns the session and its private key. */
async function login(email: string, extra: { invalidateExisting?: boolean; organizationId?: string } = {}) {
  const bind = generateApiKeyPair();
  const verificationToken = await verifyContact(email, bind);
  const session = generateApiKeyPair();
  const result = await proxy.otpLoginV2({
    verificationToken,
    publicKey: session.publicKey,
    clientSignature: otpLoginClientSignature({ verificationToken, sessionPublicKey: session.publicKey, privateKeyHex: bind.privateKey }),
    ...extra,
  });
  return { token: result.session, sessionKey: session, verificationToken, bind };
}

describe("OTP login (otp_init → otp_verify → otp_login_v2)", () => {
  it("signs up and logs in end to end; the session key stamps main-API requests", async () => {
    const { organizationId, userId, email } = await signUpWithOtp();
    const { token, sessionKey, verificationToken } = await login(email);

    // The tokens are signed by the emulator's signing key, in the official formats.
    const claims = verifyVerificationToken(verificationToken, t.emulator.bootstrap.signerPublicKey);
    expect(claims).toMatchObject({ verification_type: "OTP_TYPE_EMAIL", contact: email, organization_id: t.emulator.bootstrap.organizationId });
    await expect(verifyOtpVerificationToken(verificationToken, t.emulator.bootstrap.signerPublicKey)).resolves.toMatchObject({ contact: email });
    expect(verifySessionToken(token, t.emulator.bootstrap.signerPublicKey)).toMatchObject({ user_id: userId, organization_id: organizationId });
    await expect(verifySessionJwtSignature(token, t.emulator.bootstrap.signerPublicKey)).resolves.toBe(true);

    const session = parseSession(token);
    expect(session).toMatchObject({ sessionType: "SESSION_TYPE_READ_WRITE", userId, organizationId, publicKey: sessionKey.publicKey });
    expect(session.expiry * 1000 - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    expect(session.expiry * 1000 - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);

    const c = clientFor(session.organizationId, sessionStamper(sessionKey.privateKey));
    expect((await c.whoami()).userId).toBe(userId);
    const { userTagId } = await c.createUserTag({ userTagName: "by-session", userIds: [userId] });
    expect(userTagId).toBeTruthy();
    const { apiKeys } = await c.getApiKeys({ userId });
    expect(apiKeys).toHaveLength(1);
    expect(apiKeys[0]).toMatchObject({ credential: { type: "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256", publicKey: sessionKey.publicKey }, expirationSeconds: "900" });
  });

  it("works by phone (SMS) and with an explicit organizationId; a foreign organization is refused", async () => {
    const phone = `+1415555${String(1000 + counter++).slice(-4)}`;
    const key = generateApiKeyPair();
    const { organizationId, userId } = await proxy.signupV2({
      userPhoneNumber: phone,
      apiKeys: [{ apiKeyName: "k", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [],
    });
    const bind = generateApiKeyPair();
    const verificationToken = await verifyContact(phone, bind, "OTP_TYPE_SMS");
    const session = generateApiKeyPair();
    const clientSignature = otpLoginClientSignature({ verificationToken, sessionPublicKey: session.publicKey, privateKeyHex: bind.privateKey });
    // The root organization has no user with this phone number.
    await expect(proxy.otpLoginV2({ verificationToken, publicKey: session.publicKey, clientSignature, organizationId: t.emulator.bootstrap.organizationId })).rejects.toBeInstanceOf(NotFoundError);
    const { session: token } = await proxy.otpLoginV2({ verificationToken, publicKey: session.publicKey, clientSignature, organizationId });
    expect(parseSession(token)).toMatchObject({ userId, organizationId });
    expect((await clientFor(organizationId, sessionStamper(session.privateKey)).whoami()).userId).toBe(userId);
  });

  it("a code and a verification token each work once", async () => {
    const { email } = await signUpWithOtp();
    const { otpId } = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: email });
    const { code } = await outboxCode(email);
    const bind = generateApiKeyPair();
    const { verificationToken } = await proxy.otpVerify({ otpId, otpCode: code, publicKey: bind.publicKey });
    expect((await outboxCode(email)).used).toBe(true);
    const again = await proxy.otpVerify({ otpId, otpCode: code, publicKey: bind.publicKey }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(BadRequestError);
    expect((again as BadRequestError).message).toMatch(/otpId: .*already used/);

    const session = generateApiKeyPair();
    const body = { verificationToken, publicKey: session.publicKey, clientSignature: otpLoginClientSignature({ verificationToken, sessionPublicKey: session.publicKey, privateKeyHex: bind.privateKey }) };
    await proxy.otpLoginV2(body);
    const reuse = await proxy.otpLoginV2(body).catch((e: unknown) => e);
    expect(reuse).toBeInstanceOf(AuthenticationError);
    expect((reuse as AuthenticationError).message).toMatch(/verificationToken: already used/);
  });

  it("a wrong code is a 400 and does not use up the OTP", async () => {
    const email = `wrong-${Date.now()}@example.com`;
    const { otpId } = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: email });
    const { code } = await outboxCode(email);
    const wrong = code === "000000" ? "000001" : "000000";
    const error = await proxy.otpVerify({ otpId, otpCode: wrong }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toMatch(/otpCode: invalid OTP code/);
    await expect(proxy.otpVerify({ otpId: "5b0a7f1e-0000-4000-8000-000000000000", otpCode: code })).rejects.toBeInstanceOf(NotFoundError);
    await expect(proxy.otpVerify({ otpId, otpCode: code })).resolves.toHaveProperty("verificationToken");
  });

  it("refuses bad otp_init input", async () => {
    const headers = { "X-Auth-Proxy-Config-Id": t.emulator.bootstrap.authProxyConfigId };
    let res = await post(t.emulator.url, "/v1/otp_init", { otpType: "OTP_TYPE_EMAIL", contact: "not-an-email" }, null, headers);
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toMatch(/contact/);
    res = await post(t.emulator.url, "/v1/otp_init", { otpType: "OTP_TYPE_PIGEON", contact: "a@b.co" }, null, headers);
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toMatch(/otpType/);
    res = await post(t.emulator.url, "/v1/otp_init", { otpType: "OTP_TYPE_EMAIL", contact: "a@b.co" }, null);
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
  });

  it("codes, verification tokens and sessions expire", async () => {
    const { email } = await signUpWithOtp();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });

    // A code is valid for 5 minutes.
    const { otpId } = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: email });
    const { code } = await outboxCode(email);
    vi.setSystemTime(Date.now() + 5 * 60 * 1000 + 1);
    const expired = await proxy.otpVerify({ otpId, otpCode: code }).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(BadRequestError);
    expect((expired as BadRequestError).message).toMatch(/otpId: .*expired/);

    // A verification token is accepted for 10 minutes.
    const bind = generateApiKeyPair();
    const verificationToken = await verifyContact(email, bind);
    vi.setSystemTime(Date.now() + 10 * 60 * 1000 + 1);
    const session = generateApiKeyPair();
    const late = await proxy
      .otpLoginV2({ verificationToken, publicKey: session.publicKey, clientSignature: otpLoginClientSignature({ verificationToken, sessionPublicKey: session.publicKey, privateKeyHex: bind.privateKey }) })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(AuthenticationError);
    expect((late as AuthenticationError).message).toMatch(/verificationToken: .*expired/);

    // A session key stamps for 15 minutes.
    const { token, sessionKey } = await login(email);
    const c = clientFor(parseSession(token).organizationId, sessionStamper(sessionKey.privateKey));
    await expect(c.whoami()).resolves.toBeTruthy();
    vi.setSystemTime(Date.now() + 14 * 60 * 1000);
    await expect(c.whoami()).resolves.toBeTruthy();
    vi.setSystemTime(Date.now() + 61 * 1000);
    const after = await c.whoami().catch((e: unknown) => e);
    expect(after).toBeInstanceOf(AuthenticationError);
    expect((after as AuthenticationError).message).toMatch(/expired/);
  });

  it("refuses client signatures that do not match the token or the session key", async () => {
    const { email } = await signUpWithOtp();
    const bind = generateApiKeyPair();
    const verificationToken = await verifyContact(email, bind);
    const session = generateApiKeyPair();
    const good = otpLoginClientSignature({ verificationToken, sessionPublicKey: session.publicKey, privateKeyHex: bind.privateKey });
    const other = generateApiKeyPair();
    const { id } = decodeVerificationToken(verificationToken);
    const cases: [string, typeof good, RegExp][] = [
      ["signed with another key", signClientMessage(good.message, other.privateKey), /clientSignature\.publicKey/],
      ["claims the bound key, signed by another", { ...signClientMessage(good.message, other.privateKey), publicKey: bind.publicKey }, /clientSignature: the signature does not verify/],
      ["names another session key", signClientMessage(JSON.stringify({ login: { publicKey: other.publicKey }, tokenId: id, type: "USAGE_TYPE_LOGIN" }), bind.privateKey), /login\.publicKey/],
      ["names another token", signClientMessage(JSON.stringify({ login: { publicKey: session.publicKey }, tokenId: "other", type: "USAGE_TYPE_LOGIN" }), bind.privateKey), /tokenId/],
      ["is a sign-up statement", signClientMessage(JSON.stringify({ login: { publicKey: session.publicKey }, tokenId: id, type: "USAGE_TYPE_SIGNUP" }), bind.privateKey), /USAGE_TYPE_LOGIN/],
    ];
    for (const [, clientSignature, message] of cases) {
      const error = await proxy.otpLoginV2({ verificationToken, publicKey: session.publicKey, clientSignature }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as AuthenticationError).message).toMatch(message);
    }
    // None of the refusals consumed the token.
    const { session: token } = await proxy.otpLoginV2({ verificationToken, publicKey: session.publicKey, clientSignature: good });
    expect(parseSession(token).publicKey).toBe(session.publicKey);
    // The client helper refuses to sign with a key the token does not bind.
    expect(() => otpLoginClientSignature({ verificationToken, sessionPublicKey: session.publicKey, privateKeyHex: other.privateKey })).toThrow(/not the key bound/);
  });

  it("accepts the compact r||s signatures @turnkey/core sends", async () => {
    const { p256 } = await import("@noble/curves/p256");
    const { sha256 } = await import("@noble/hashes/sha2");
    const { email } = await signUpWithOtp();
    const bind = generateApiKeyPair();
    const verificationToken = await verifyContact(email, bind);
    const session = generateApiKeyPair();
    const message = JSON.stringify({ login: { publicKey: session.publicKey }, tokenId: decodeVerificationToken(verificationToken).id, type: "USAGE_TYPE_LOGIN" });
    const signature = p256.sign(sha256(new TextEncoder().encode(message)), bind.privateKey, { prehash: false }).toCompactHex();
    const { session: token } = await proxy.otpLoginV2({
      verificationToken,
      publicKey: session.publicKey,
      clientSignature: { scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", publicKey: bind.publicKey, message, signature },
    });
    expect(parseSession(token).publicKey).toBe(session.publicKey);
  });

  it("invalidateExisting ends the earlier sessions only", async () => {
    const { email } = await signUpWithOtp();
    const first = await login(email);
    const second = await login(email);
    const orgId = parseSession(first.token).organizationId;
    const stampWith = (s: { sessionKey: { privateKey: string } }) => clientFor(orgId, sessionStamper(s.sessionKey.privateKey)).whoami();
    await expect(stampWith(first)).resolves.toBeTruthy();
    await expect(stampWith(second)).resolves.toBeTruthy();
    const third = await login(email, { invalidateExisting: true });
    await expect(stampWith(first)).rejects.toBeInstanceOf(AuthenticationError);
    await expect(stampWith(second)).rejects.toBeInstanceOf(AuthenticationError);
    await expect(stampWith(third)).resolves.toBeTruthy();
    // A session key cannot take over another credential's public key.
    const key = generateApiKeyPair();
    // The user adds the key itself (a parent organization may not change its sub-organization).
    const own = clientFor(orgId, sessionStamper(third.sessionKey.privateKey));
    const { userId } = parseSession(third.token);
    await own.createApiKeys({ userId, apiKeys: [{ apiKeyName: "static", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }] });
    const bind = generateApiKeyPair();
    const verificationToken = await verifyContact(email, bind);
    await expect(
      proxy.otpLoginV2({ verificationToken, publicKey: key.publicKey, clientSignature: otpLoginClientSignature({ verificationToken, sessionPublicKey: key.publicKey, privateKeyHex: bind.privateKey }) }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("the outbox lists the newest codes first and filters by contact", async () => {
    const a = `outbox-a-${Date.now()}@example.com`;
    const b = `outbox-b-${Date.now()}@example.com`;
    const first = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: a });
    await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: b });
    const second = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: a });
    const res = await fetch(`${t.emulator.url}/_keyform/otp-outbox?contact=${encodeURIComponent(a.toUpperCase())}`);
    const { messages } = (await res.json()) as { messages: { otpId: string; otpType: string; used: boolean; expiresAt: string }[] };
    expect(messages.map((m) => m.otpId)).toEqual([second.otpId, first.otpId]);
    expect(messages[0]).toMatchObject({ otpType: "OTP_TYPE_EMAIL", used: false });
    expect((await fetch(`${t.emulator.url}/_keyform/otp-outbox?limit=0`)).status).toBe(400);
  });
});

describe("otp_auth (activity)", () => {
  it("exchanges a code for an API key delivered as a credential bundle (official decrypt works)", async () => {
    const { organizationId, userId, email } = await signUpWithOtp();
    const parent = clientFor(organizationId, root());
    const { otpId } = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: email });
    const { code } = await outboxCode(email);
    const target = generateApiKeyPair();
    const result = await parent.otpAuth({ otpId, otpCode: code, targetPublicKey: target.publicKey });
    expect(result.userId).toBe(userId);

    // The official client decrypts the bundle; the key inside is the registered API key.
    const privateKey = officialDecrypt(result.credentialBundle!, target.privateKey);
    const { apiKey } = await parent.getApiKey({ apiKeyId: result.apiKeyId! });
    expect(publicKeyFromPrivateKey(privateKey)).toBe(apiKey.credential.publicKey);
    const official = clientFor(organizationId, new ApiKeyStamper({ apiPublicKey: apiKey.credential.publicKey, apiPrivateKey: privateKey }));
    expect((await official.whoami()).userId).toBe(userId);
    expect((await clientFor(organizationId, stamperFromCredentialBundle(result.credentialBundle!, target.privateKey)).whoami()).userId).toBe(userId);
    expect(apiKey).toMatchObject({ expirationSeconds: "900", credential: { type: "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256" } });
    expect(apiKey.apiKeyName).toMatch(/^OTP Auth - \d{4}-\d\d-\d\dT/);

    // The code works once.
    const reuse = await parent.otpAuth({ otpId, otpCode: code, targetPublicKey: target.publicKey }).catch((e: unknown) => e);
    expect(reuse).toBeInstanceOf(BadRequestError);
    expect((reuse as BadRequestError).message).toMatch(/already used/);
  });

  it("refuses a wrong or expired code, honours apiKeyName, expirationSeconds and invalidateExisting", async () => {
    const { organizationId, email } = await signUpWithOtp();
    const parent = clientFor(organizationId, root());
    const target = generateApiKeyPair();
    const fresh = async () => {
      const { otpId } = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: email });
      // By id: the test moves the clock back and forth, so "newest" is not "last sent".
      return { otpId, code: (await outboxCode(email, otpId)).code };
    };

    let otp = await fresh();
    const wrong = await parent.otpAuth({ otpId: otp.otpId, otpCode: otp.code === "999999" ? "111111" : "999999", targetPublicKey: target.publicKey }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(BadRequestError);
    expect((wrong as BadRequestError).message).toMatch(/otpCode: invalid OTP code/);
    const badTarget = await parent.otpAuth({ otpId: otp.otpId, otpCode: otp.code, targetPublicKey: "04abcd" }).catch((e: unknown) => e);
    expect((badTarget as BadRequestError).message).toMatch(/targetPublicKey/);

    const first = await parent.otpAuth({ otpId: otp.otpId, otpCode: otp.code, targetPublicKey: target.publicKey, apiKeyName: "first", expirationSeconds: "60" });
    otp = await fresh();
    const second = await parent.otpAuth({ otpId: otp.otpId, otpCode: otp.code, targetPublicKey: target.publicKey, apiKeyName: "second" });
    const firstClient = clientFor(organizationId, stamperFromCredentialBundle(first.credentialBundle!, target.privateKey));
    const secondClient = clientFor(organizationId, stamperFromCredentialBundle(second.credentialBundle!, target.privateKey));
    await expect(firstClient.whoami()).resolves.toBeTruthy();
    await expect(secondClient.whoami()).resolves.toBeTruthy();

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    vi.setSystemTime(Date.now() + 61 * 1000);
    await expect(firstClient.whoami()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(secondClient.whoami()).resolves.toBeTruthy();

    otp = await fresh();
    vi.setSystemTime(Date.now() + 5 * 60 * 1000 + 1);
    const late = await parent.otpAuth({ otpId: otp.otpId, otpCode: otp.code, targetPublicKey: target.publicKey }).catch((e: unknown) => e);
    expect((late as BadRequestError).message).toMatch(/expired/);
    vi.useRealTimers();

    otp = await fresh();
    const third = await parent.otpAuth({ otpId: otp.otpId, otpCode: otp.code, targetPublicKey: target.publicKey, invalidateExisting: true });
    await expect(secondClient.whoami()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(clientFor(organizationId, stamperFromCredentialBundle(third.credentialBundle!, target.privateKey)).whoami()).resolves.toBeTruthy();

    // A code sent to someone who is not a user of the organization gives no key there.
    const stranger = `stranger-${Date.now()}@example.com`;
    const { otpId } = await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: stranger });
    const { code } = await outboxCode(stranger);
    await expect(parent.otpAuth({ otpId, otpCode: code, targetPublicKey: target.publicKey })).rejects.toBeInstanceOf(NotFoundError);
  });
});
