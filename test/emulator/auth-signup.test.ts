/**
 * signup_v2 at the emulator's auth proxy over real HTTP: every combination of the optional
 * parts, the new organization read back with its own credentials (API keys on three curves,
 * a passkey), and the refusals (bad inputs, config id).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiKeyStamper,
  AuthenticationError,
  AuthProxyClient,
  BadRequestError,
  generateApiKeyPair,
  KeyformClient,
  PermissionDeniedError,
  RequestValidationError,
  signClientMessage,
  verifyAppProof,
  type ApiKeyCurve,
  type Stamper,
} from "../../sdk/client";
import { SimulatedAuthenticator } from "../support/simulated-authenticator";
import type { ParamsOf } from "../../sdk/wire/registry";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { post } from "./raw";

let t: TestEmulator;
let proxy: AuthProxyClient;

beforeAll(async () => {
  t = await startTestEmulator();
  proxy = new AuthProxyClient({ authProxyUrl: t.emulator.authProxyUrl, authProxyConfigId: t.emulator.bootstrap.authProxyConfigId });
});
afterAll(async () => {
  await t.stop();
});

function clientFor(organizationId: string, stamper: Stamper): KeyformClient {
  return new KeyformClient({ baseUrl: t.emulator.url, organizationId, stamper, poll: { intervalMs: 20 } });
}

/** An unsigned OIDC token (header.payload.signature), base64-encoded as the spec says. */
function oidcToken(claims: Record<string, unknown>): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return Buffer.from(`${part({ alg: "RS256" })}.${part(claims)}.c2ln`).toString("base64");
}

const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" } as const;
const SOL = { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" } as const;

const PARTS = ["profile", "apiKeys", "passkey", "oauth", "wallet", "clientSignature"] as const;
type Part = (typeof PARTS)[number];
const combinations: Part[][] = Array.from({ length: 1 << PARTS.length }, (_, mask) => PARTS.filter((_, i) => mask & (1 << i)));

describe("signup_v2", () => {
  it.each(combinations.map((parts) => [parts.join("+") || "nothing optional", parts] as const))("%s", async (_label, parts) => {
    const has = (p: Part) => parts.includes(p);
    const n = Math.random().toString(36).slice(2, 8);
    const keys = (["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519"] as ApiKeyCurve[]).map((curve) => generateApiKeyPair(curve));
    const passkey = new SimulatedAuthenticator();
    const signer = generateApiKeyPair();
    const body: ParamsOf<"signupV2"> = {
      apiKeys: has("apiKeys") ? keys.map((k, i) => ({ apiKeyName: `key-${i}`, publicKey: k.publicKey, curveType: k.curve, ...(i === 0 ? { expirationSeconds: "3600" } : {}) })) : [],
      authenticators: has("passkey") ? [{ authenticatorName: "laptop", challenge: "c2lnbnVwLWNoYWxsZW5nZQ", attestation: passkey.register("c2lnbnVwLWNoYWxsZW5nZQ") }] : [],
      oauthProviders: has("oauth")
        ? [
            { providerName: "google", oidcToken: oidcToken({ iss: "https://accounts.google.com", sub: `sub-${n}`, aud: "client-1" }) },
            { providerName: "apple", oidcClaims: { iss: "https://appleid.apple.com", sub: `apple-${n}`, aud: "client-2" } },
          ]
        : [],
      ...(has("profile")
        ? { userName: `Alice ${n}`, userEmail: `alice-${n}@example.com`, userPhoneNumber: "+14155550123", userTag: "end-users", organizationName: `Org ${n}` }
        : {}),
      ...(has("wallet") ? { wallet: { walletName: "Default", accounts: [ETH, SOL], ...(has("profile") ? { mnemonicLength: 24 } : {}) } } : {}),
      ...(has("clientSignature") ? { clientSignature: signClientMessage(`signup ${n}`, signer.privateKey) } : {}),
    };

    const result = await proxy.signupV2(body);
    expect(result.organizationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.appProofs).toBeUndefined();

    // Read the new organization with its own credential when it has one, else with the parent's key.
    const stamper: Stamper = has("apiKeys")
      ? new ApiKeyStamper({ apiPublicKey: keys[2]!.publicKey, apiPrivateKey: keys[2]!.privateKey, curve: "API_KEY_CURVE_ED25519" })
      : has("passkey")
        ? passkey
        : new ApiKeyStamper({ apiPublicKey: t.emulator.bootstrap.apiPublicKey, apiPrivateKey: t.emulator.bootstrap.apiPrivateKey });
    const sub = clientFor(result.organizationId, stamper);
    const { user } = await sub.getUser({ userId: result.userId });
    const whoami = await sub.whoami();
    expect(whoami.organizationId).toBe(result.organizationId);
    expect(whoami.userId).toBe(has("apiKeys") || has("passkey") ? result.userId : t.emulator.bootstrap.userId);

    if (has("profile")) {
      expect(user).toMatchObject({ userName: `Alice ${n}`, userEmail: `alice-${n}@example.com`, userPhoneNumber: "+14155550123" });
      expect(whoami.organizationName).toBe(`Org ${n}`);
      const { userTags } = await sub.listUserTags();
      expect(userTags.map((tag) => tag.tagName)).toEqual(["end-users"]);
      expect(user.userTags).toEqual([userTags[0]!.tagId]);
    } else {
      expect(user.userEmail).toBeUndefined();
      expect(user.userTags).toEqual([]);
    }
    expect(user.apiKeys.map((k) => [k.apiKeyName, k.credential.type, k.credential.publicKey, k.expirationSeconds]).sort()).toEqual(
      has("apiKeys")
        ? [
            ["key-0", "CREDENTIAL_TYPE_API_KEY_P256", keys[0]!.publicKey, "3600"],
            ["key-1", "CREDENTIAL_TYPE_API_KEY_SECP256K1", keys[1]!.publicKey, undefined],
            ["key-2", "CREDENTIAL_TYPE_API_KEY_ED25519", keys[2]!.publicKey, undefined],
          ]
        : [],
    );
    expect(user.authenticators.map((a) => [a.authenticatorName, a.credentialId, a.credential.publicKey])).toEqual(
      has("passkey") ? [["laptop", passkey.credentialId, passkey.publicKey]] : [],
    );
    expect(user.oauthProviders.map((o) => [o.providerName, o.issuer, o.subject, o.audience]).sort()).toEqual(
      has("oauth")
        ? [
            ["apple", "https://appleid.apple.com", `apple-${n}`, "client-2"],
            ["google", "https://accounts.google.com", `sub-${n}`, "client-1"],
          ]
        : [],
    );
    if (has("wallet")) {
      expect(result.wallet?.addresses).toHaveLength(2);
      expect(result.wallet!.addresses[0]).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(result.wallet!.addresses[1]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      const { accounts } = await sub.listWalletAccounts({ walletId: result.wallet!.walletId });
      expect(accounts.map((a) => a.address).sort()).toEqual([...result.wallet!.addresses].sort());
    } else {
      expect(result.wallet).toBeUndefined();
    }
    // The root user of the new organization is its root quorum, and the parent still reaches it.
    const parent = clientFor(result.organizationId, new ApiKeyStamper({ apiPublicKey: t.emulator.bootstrap.apiPublicKey, apiPrivateKey: t.emulator.bootstrap.apiPrivateKey }));
    const { organizationData } = await parent.getOrganization();
    expect(organizationData.rootQuorum).toEqual({ threshold: 1, userIds: [result.userId] });
  });

  it("new API keys stamp at once on every curve; the other keys of the body are its own", async () => {
    const keys = (["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1"] as ApiKeyCurve[]).map((curve) => generateApiKeyPair(curve));
    const { organizationId, userId } = await proxy.signupV2({
      apiKeys: keys.map((k, i) => ({ apiKeyName: `k${i}`, publicKey: k.publicKey, curveType: k.curve })),
      authenticators: [],
      oauthProviders: [],
    });
    for (const k of keys) {
      const c = clientFor(organizationId, new ApiKeyStamper({ apiPublicKey: k.publicKey, apiPrivateKey: k.privateKey, curve: k.curve }));
      expect((await c.whoami()).userId).toBe(userId);
      // It can act in its organization.
      const { userTagId } = await c.createUserTag({ userTagName: `t-${k.curve}`, userIds: [userId] });
      expect(userTagId).toBeTruthy();
    }
    // …but not in the parent organization.
    const k = keys[0]!;
    const inParent = clientFor(t.emulator.bootstrap.organizationId, new ApiKeyStamper({ apiPublicKey: k.publicKey, apiPrivateKey: k.privateKey }));
    await expect(inParent.whoami()).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it("returns App Proofs when asked: a sign-up proof and one address proof per account", async () => {
    const result = await proxy.signupV2({
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
      wallet: { walletName: "W", accounts: [ETH, SOL] },
      generateAppProofs: true,
    });
    expect(result.appProofs).toHaveLength(3);
    for (const proof of result.appProofs!) expect(verifyAppProof(proof)).toBe(true);
    const payloads = result.appProofs!.map((p) => JSON.parse(p.proofPayload));
    expect(payloads[0]).toMatchObject({ type: "APP_PROOF_TYPE_POLICY_OUTCOME", policyOutcomeProof: { organizationId: result.organizationId } });
    expect(payloads.slice(1).map((p) => p.addressDerivationProof)).toEqual([
      { organizationId: result.organizationId, walletId: result.wallet!.walletId, derivationPath: ETH.path, address: result.wallet!.addresses[0] },
      { organizationId: result.organizationId, walletId: result.wallet!.walletId, derivationPath: SOL.path, address: result.wallet!.addresses[1] },
    ]);
    const tampered = { ...result.appProofs![1]!, proofPayload: result.appProofs![1]!.proofPayload.replace(result.wallet!.addresses[0]!, `0x${"1".repeat(40)}`) };
    expect(verifyAppProof(tampered)).toBe(false);
  });
});

describe("signup_v2 refusals", () => {
  const base = { apiKeys: [], authenticators: [], oauthProviders: [] };
  const url = () => t.emulator.authProxyUrl;
  const headers = () => ({ "X-Auth-Proxy-Config-Id": t.emulator.bootstrap.authProxyConfigId });

  it.each([
    ["mnemonicLength 13", { ...base, wallet: { walletName: "w", accounts: [], mnemonicLength: 13 } }, /wallet\.mnemonicLength/],
    ["unknown curveType", { ...base, apiKeys: [{ apiKeyName: "k", publicKey: "02" + "11".repeat(32), curveType: "API_KEY_CURVE_RSA" }] }, /apiKeys\.0\.curveType/],
    ["phone not E.164", { ...base, userPhoneNumber: "4155550123" }, /userPhoneNumber/],
    ["apiKeys missing", { authenticators: [], oauthProviders: [] }, /apiKeys/],
    ["bad transport enum", { ...base, authenticators: [{ authenticatorName: "a", challenge: "x", attestation: { credentialId: "x", clientDataJson: "x", attestationObject: "x", transports: ["USB"] } }] }, /transports/],
    ["key not on its curve", { ...base, apiKeys: [{ apiKeyName: "k", publicKey: "02" + "ff".repeat(32), curveType: "API_KEY_CURVE_P256" }] }, /apiKeys\[0\]\.publicKey/],
    ["address format not fitting the curve", { ...base, wallet: { walletName: "w", accounts: [{ ...ETH, curve: "CURVE_ED25519" }] } }, /wallet\.accounts\[0\]\.addressFormat/],
    ["OAuth provider without identity", { ...base, oauthProviders: [{ providerName: "google" }] }, /oauthProviders\[0\]/],
    ["OIDC token without claims", { ...base, oauthProviders: [{ providerName: "google", oidcToken: "bm90IGEgand0" }] }, /oauthProviders\[0\]\.oidcToken/],
  ])("%s → 400 naming the field", async (_label, body, field) => {
    const res = await post(url(), "/v1/signup_v2", body, null, headers());
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toMatch(field);
  });

  it("refuses a passkey whose attestation does not match its challenge or credential id", async () => {
    const passkey = new SimulatedAuthenticator();
    const attestation = passkey.register("Y2hhbGxlbmdl");
    let res = await post(url(), "/v1/signup_v2", { ...base, authenticators: [{ authenticatorName: "a", challenge: "b3RoZXI", attestation }] }, null, headers());
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toMatch(/authenticators\[0\]\.challenge/);
    res = await post(url(), "/v1/signup_v2", { ...base, authenticators: [{ authenticatorName: "a", challenge: "Y2hhbGxlbmdl", attestation: { ...attestation, credentialId: "AAAA" } }] }, null, headers());
    expect(res.body.message).toMatch(/authenticators\[0\]\.attestation\.credentialId/);
  });

  it("refuses a forged client signature", async () => {
    const sig = signClientMessage("hello", generateApiKeyPair().privateKey);
    const error = await proxy.signupV2({ ...base, clientSignature: { ...sig, message: "hello!" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).message).toMatch(/clientSignature/);
  });

  it("needs the right X-Auth-Proxy-Config-Id (401) and writes nothing without it", async () => {
    let res = await post(url(), "/v1/signup_v2", base, null);
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
    expect(res.body.message).toMatch(/X-Auth-Proxy-Config-Id: required/);
    res = await post(url(), "/v1/signup_v2", base, null, { "X-Auth-Proxy-Config-Id": "not-the-config" });
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
    expect(res.body.message).toMatch(/X-Auth-Proxy-Config-Id: unknown/);
    const wrong = new AuthProxyClient({ authProxyUrl: url(), authProxyConfigId: "nope" });
    await expect(wrong.signupV2(base)).rejects.toBeInstanceOf(AuthenticationError);
    // The typed client refuses bad input before sending anything.
    await expect(proxy.signupV2({ ...base, wallet: { walletName: "w", accounts: [], mnemonicLength: 13 } })).rejects.toBeInstanceOf(RequestValidationError);
  });

  it("a refused sign-up leaves nothing behind", async () => {
    const key = generateApiKeyPair();
    const body = { ...base, apiKeys: [{ apiKeyName: "k", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], wallet: { walletName: "w", accounts: [{ ...ETH, path: "not a path" }] } };
    const res = await post(url(), "/v1/signup_v2", body, null, headers());
    expect(res).toMatchObject({ status: 400 });
    expect(res.body.message).toMatch(/wallet\.accounts\[0\]\.path/);
    // The key was not registered anywhere: stamping with it finds nothing.
    const c = clientFor(t.emulator.bootstrap.organizationId, new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }));
    await expect(c.whoami()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe("passkey (X-Stamp-WebAuthn) stamps", () => {
  it("a passkey registered at sign-up stamps queries and activities; tampered assertions get 401", async () => {
    const passkey = new SimulatedAuthenticator();
    const { organizationId, userId } = await proxy.signupV2({
      apiKeys: [],
      authenticators: [{ authenticatorName: "phone", challenge: "cmVn", attestation: passkey.register("cmVn") }],
      oauthProviders: [],
    });
    const c = clientFor(organizationId, passkey);
    expect((await c.whoami()).userId).toBe(userId);
    const { userTagId } = await c.createUserTag({ userTagName: "from-passkey", userIds: [] });
    expect(userTagId).toBeTruthy();

    const body = JSON.stringify({ organizationId });
    const good = JSON.parse(passkey.stamp(body).value) as Record<string, string>;
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, "base64url");
      bytes[bytes.length - 1] ^= 1;
      return bytes.toString("base64url");
    };
    const variants: [string, Record<string, string>, RegExp][] = [
      ["signature", { ...good, signature: flip(good.signature!) }, /signature|DER|verify/i],
      ["authenticatorData", { ...good, authenticatorData: flip(good.authenticatorData!) }, /verify/],
      ["challenge of another body", JSON.parse(passkey.stamp(JSON.stringify({ organizationId: organizationId + " " })).value), /challenge/],
      ["unknown credential", { ...good, credentialId: "AAAAAAAAAAAAAAAAAAAAAA" }, /could not find credential/],
    ];
    for (const [, stamp, message] of variants) {
      const res = await post(t.emulator.url, "/public/v1/query/whoami", body, null, { "X-Stamp-WebAuthn": JSON.stringify(stamp) });
      expect(res).toMatchObject({ status: 401, body: { code: 16 } });
      expect(res.body.message).toMatch(message);
    }
    const ok = await post(t.emulator.url, "/public/v1/query/whoami", body, null, { "X-Stamp-WebAuthn": passkey.stamp(body).value });
    expect(ok.status).toBe(200);

    // The passkey belongs to the sub-organization: the parent organization is out of reach.
    const parentBody = JSON.stringify({ organizationId: t.emulator.bootstrap.organizationId });
    const res = await post(t.emulator.url, "/public/v1/query/whoami", parentBody, null, { "X-Stamp-WebAuthn": passkey.stamp(parentBody).value });
    expect(res).toMatchObject({ status: 403, body: { code: 7 } });
  });

  it("a passkey registered through create_users stamps too (key read from its attestation)", async () => {
    const passkey = new SimulatedAuthenticator();
    const { userIds } = await t.client.createUsers({
      users: [
        {
          userName: `passkey-user-${Date.now()}`,
          apiKeys: [],
          authenticators: [{ authenticatorName: "yubikey", challenge: "eA", attestation: passkey.register("eA") }],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const c = clientFor(t.emulator.bootstrap.organizationId, passkey);
    expect((await c.whoami()).userId).toBe(userIds[0]);
    await expect(clientFor(t.emulator.bootstrap.organizationId, { stamp: (b: string) => ({ name: "X-Stamp-WebAuthn", value: passkey.stamp(b + " ").value }) }).whoami()).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    expect(BadRequestError).toBeDefined();
  });
});
