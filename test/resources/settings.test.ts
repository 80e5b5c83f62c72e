/** Provider settings: stack config, then the environment, then the defaults. */
import { describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { MissingSettingError, requireSetting, resolveSettings, DEFAULT_BASE_URL, DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_MAX_REQUESTS_PER_SECOND, DEFAULT_TIMEOUT_MS } from "../../sdk/resources/runtime/settings";

const { publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY } = generateApiKeyPair();

describe("resolveSettings", () => {
  it("defaults to the hosted service", () => {
    expect(resolveSettings(undefined, {})).toEqual({
      baseUrl: DEFAULT_BASE_URL,
      authProxyUrl: "https://authproxy.turnkey.com",
      timeoutMs: DEFAULT_TIMEOUT_MS,
      firstByteTimeoutMs: DEFAULT_FIRST_BYTE_TIMEOUT_MS,
      maxRequestsPerSecond: DEFAULT_MAX_REQUESTS_PER_SECOND,
      allowLockout: false,
      journalDir: ".keyform/journal",
    });
    expect(DEFAULT_MAX_REQUESTS_PER_SECOND).toBe(0);
    expect(DEFAULT_FIRST_BYTE_TIMEOUT_MS).toBe(15_000);
  });

  it("allowLockout: true or false from keyform:allowLockout or KEYFORM_ALLOW_LOCKOUT; anything else names both", () => {
    expect(resolveSettings((k) => (k === "keyform:allowLockout" ? "true" : undefined), {}).allowLockout).toBe(true);
    expect(resolveSettings(undefined, { KEYFORM_ALLOW_LOCKOUT: "false" }).allowLockout).toBe(false);
    expect(() => resolveSettings(undefined, { KEYFORM_ALLOW_LOCKOUT: "yes" })).toThrow(/"allowLockout" \(keyform:allowLockout or KEYFORM_ALLOW_LOCKOUT\) must be true or false/);
  });

  it("maxRequestsPerSecond: a non-negative number from keyform:maxRequestsPerSecond or KEYFORM_MAX_REQUESTS_PER_SECOND (0 = no limit); anything else names both", () => {
    expect(resolveSettings((k) => (k === "keyform:maxRequestsPerSecond" ? "4" : undefined), { KEYFORM_MAX_REQUESTS_PER_SECOND: "9" }).maxRequestsPerSecond).toBe(4);
    expect(resolveSettings(undefined, { KEYFORM_MAX_REQUESTS_PER_SECOND: "2.5" }).maxRequestsPerSecond).toBe(2.5);
    expect(resolveSettings(undefined, { KEYFORM_MAX_REQUESTS_PER_SECOND: "0" }).maxRequestsPerSecond).toBe(0);
    for (const bad of ["-1", "fast", "1e3"]) {
      expect(() => resolveSettings(undefined, { KEYFORM_MAX_REQUESTS_PER_SECOND: bad })).toThrow(
        /"maxRequestsPerSecond" \(keyform:maxRequestsPerSecond or KEYFORM_MAX_REQUESTS_PER_SECOND\) must be a number/,
      );
    }
  });

  it("timeoutMs: a positive whole number of ms from keyform:timeoutMs or KEYFORM_TIMEOUT_MS; anything else names both", () => {
    expect(resolveSettings((k) => (k === "keyform:timeoutMs" ? "1500" : undefined), { KEYFORM_TIMEOUT_MS: "9" }).timeoutMs).toBe(1500);
    expect(resolveSettings(undefined, { KEYFORM_TIMEOUT_MS: "250" }).timeoutMs).toBe(250);
    for (const bad of ["0", "-5", "1.5", "soon"]) {
      expect(() => resolveSettings(undefined, { KEYFORM_TIMEOUT_MS: bad })).toThrow(/"timeoutMs" \(keyform:timeoutMs or KEYFORM_TIMEOUT_MS\) must be a positive whole number/);
    }
  });

  it("firstByteTimeoutMs: a positive whole number of ms from keyform:firstByteTimeoutMs or KEYFORM_FIRST_BYTE_TIMEOUT_MS; anything else names both", () => {
    expect(resolveSettings((k) => (k === "keyform:firstByteTimeoutMs" ? "4000" : undefined), { KEYFORM_FIRST_BYTE_TIMEOUT_MS: "9" }).firstByteTimeoutMs).toBe(4000);
    expect(resolveSettings(undefined, { KEYFORM_FIRST_BYTE_TIMEOUT_MS: "250" }).firstByteTimeoutMs).toBe(250);
    for (const bad of ["0", "-5", "1.5", "soon"]) {
      expect(() => resolveSettings(undefined, { KEYFORM_FIRST_BYTE_TIMEOUT_MS: bad })).toThrow(
        /"firstByteTimeoutMs" \(keyform:firstByteTimeoutMs or KEYFORM_FIRST_BYTE_TIMEOUT_MS\) must be a positive whole number/,
      );
    }
  });

  it("reads keyform:* config before KEYFORM_* variables; empty values count as unset", () => {
    const config: Record<string, string> = { "keyform:baseUrl": "http://config", "keyform:organizationId": "" , "keyform:config:apiPublicKey": PUBLIC_KEY };
    const settings = resolveSettings((k) => config[k], {
      KEYFORM_BASE_URL: "http://env",
      KEYFORM_ORGANIZATION_ID: "org-env",
      KEYFORM_API_PRIVATE_KEY: PRIVATE_KEY,
      KEYFORM_AUTH_PROXY_CONFIG_ID: "cfg",
    });
    expect(settings).toMatchObject({ baseUrl: "http://config", organizationId: "org-env", apiPublicKey: PUBLIC_KEY, apiPrivateKey: PRIVATE_KEY, authProxyConfigId: "cfg" });
  });

  it("a missing credential names the config key (as a secret) and the environment variable", () => {
    const settings = resolveSettings(undefined, {});
    expect(() => requireSetting(settings, "apiPrivateKey", "UserTag: create")).toThrow(MissingSettingError);
    expect(() => requireSetting(settings, "apiPrivateKey", "UserTag: create")).toThrow(
      'keyform: UserTag: create needs the setting "apiPrivateKey": set it with `pulumi config set --secret keyform:apiPrivateKey <value>` or the environment variable KEYFORM_API_PRIVATE_KEY',
    );
    expect(() => requireSetting(settings, "organizationId", "x")).toThrow(/keyform:organizationId.*KEYFORM_ORGANIZATION_ID/);
  });

  it("every setting's value goes through its one parser, in the runtime and in CheckConfig alike", () => {
    expect(() => resolveSettings(undefined, { KEYFORM_BASE_URL: "localhost:8080" })).toThrow(/"baseUrl" \(keyform:baseUrl or KEYFORM_BASE_URL\) must be an http\(s\) URL, got "localhost:8080"/);
    expect(() => resolveSettings(undefined, { KEYFORM_API_PUBLIC_KEY: "02pub" })).toThrow(/"apiPublicKey" .* must be a compressed public key in hex/);
    // A secret is never echoed, not even a wrong one.
    let message = "";
    try {
      resolveSettings(undefined, { KEYFORM_API_PRIVATE_KEY: "not-a-key-but-a-secret" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/"apiPrivateKey" .* must be a private key of 64 hex digits/);
    expect(message).not.toContain("not-a-key-but-a-secret");
  });
});
