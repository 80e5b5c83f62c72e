/**
 * The provider plugin's wire helpers: secrets in and out of protobuf Structs, and the checks of
 * the provider's settings (CheckConfig).
 */
import { describe, expect, it } from "vitest";
import { checkConfig, configLookupOf } from "../../sdk/plugin/config";
import { decode, encode, secret } from "../../sdk/plugin/values";
import { UNKNOWN } from "../../sdk/resources/runtime/values";

describe("values", () => {
  it("unwraps secrets on the way in and remembers which properties were secret", () => {
    const struct = encode({ name: "a", key: secret("s3cret"), nested: { list: [1, secret("x")] } });
    const decoded = decode(struct);
    expect(decoded.values).toEqual({ name: "a", key: "s3cret", nested: { list: [1, "x"] } });
    expect([...decoded.secretKeys].sort()).toEqual(["key", "nested"]);
  });

  it("wraps the named outputs as secrets and drops undefined values", () => {
    const out = encode({ privateKey: "ab", publicKey: "02", gone: undefined, list: ["a", undefined] }, ["privateKey"]).toJavaScript();
    expect(out).toEqual({ privateKey: secret("ab"), publicKey: "02", list: ["a", null] });
  });

  it("decodes an absent Struct as no properties", () => {
    expect(decode(undefined)).toEqual({ values: {}, secretKeys: new Set() });
  });
});

describe("checkConfig", () => {
  it("refuses unknown keys by name, suggesting the setting they spell", () => {
    expect(checkConfig({ baseurl: "http://x" })).toEqual([
      { property: "baseurl", reason: "keyform:baseurl is not a keyform setting; did you mean keyform:baseUrl?" },
    ]);
    expect(checkConfig({ region: "eu" })[0]!.reason).toMatch(/^keyform:region is not a keyform setting; the settings are keyform:baseUrl, /);
  });

  it("validates values without echoing a private key", () => {
    const failures = checkConfig({ baseUrl: "ftp://x", apiPublicKey: "zz", apiPrivateKey: "not-a-key-but-secret", organizationId: "" });
    expect(failures.map((f) => f.property).sort()).toEqual(["apiPrivateKey", "apiPublicKey", "baseUrl", "organizationId"]);
    expect(JSON.stringify(failures)).not.toContain("not-a-key-but-secret");
  });

  it("accepts good settings, engine keys and unknown values", () => {
    expect(
      checkConfig({ baseUrl: "https://api.example.com", apiPublicKey: "02" + "ab".repeat(32), apiPrivateKey: "cd".repeat(32), version: "1.0.0", organizationId: UNKNOWN }),
    ).toEqual([]);
  });

  it("reads settings from the provider's inputs first, then the config variables", () => {
    const lookup = configLookupOf({ baseUrl: "http://args" }, new Map([["keyform:config:baseUrl", "http://var"], ["keyform:organizationId", "o1"]]));
    expect(lookup("keyform:baseUrl")).toBe("http://args");
    expect(lookup("keyform:organizationId")).toBe("o1");
    expect(lookup("keyform:apiPublicKey")).toBeUndefined();
  });
});
