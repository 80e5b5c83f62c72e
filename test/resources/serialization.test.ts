/**
 * What Pulumi stores in state for each resource: the provider code must be small,
 * portable (no absolute paths, no copy of keyform) and free of secrets, and must work when
 * loaded back the way the dynamic-provider host loads it. Loads the compiled CommonJS from
 * dist/ with Node's own require, as the closure serializer needs (build first: `npx tsc -p .`).
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EARLIER_PROVIDER_CODE } from "../support/earlier-provider-code";

const requireCjs = createRequire(path.join(__dirname, "../../package.json"));
const pulumi = requireCjs("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
const requireFromString = requireCjs("require-from-string") as (code: string) => { handler(): Record<string, Function> };
const keyform = requireCjs("./dist/sdk/index.js") as typeof import("../../sdk/index");
const { registeredSpecs } = requireCjs("./dist/sdk/resources/runtime/index.js") as typeof import("../../sdk/resources/runtime");
const { providerCode } = requireCjs("./dist/sdk/resources/provider.js") as typeof import("../../sdk/resources/provider");

const SECRET_PRIVATE_KEY = "5e".repeat(32);
const CLASSES = [
  "UserTag",
  "Policy",
  "ApiKey",
  "Invitation",
  "SmartContractInterface",
  "EarnWrapperState",
  "User",
  "RootQuorum",
  "WebhookEndpoint",
  "IpAllowlist",
  "Wallet",
  "PrivateKey",
  "PrivateKeyTag",
  "SessionProfile",
] as const;

let savedKey: string | undefined;
beforeAll(() => {
  // A credential in the environment of the program must not end up in the serialized code.
  savedKey = process.env.KEYFORM_API_PRIVATE_KEY;
  process.env.KEYFORM_API_PRIVATE_KEY = SECRET_PRIVATE_KEY;
});
afterAll(() => {
  if (savedKey === undefined) delete process.env.KEYFORM_API_PRIVATE_KEY;
  else process.env.KEYFORM_API_PRIVATE_KEY = savedKey;
});

/** Loads provider code as the dynamic-provider host does (configure first, once) and runs a check through it. */
async function checkThrough(code: string) {
  const loaded = requireFromString(code).handler();
  await loaded.configure!({ config: { get: () => undefined } });
  const result = await loaded.check!({}, { policyName: "p", effect: "EFFECT_NOPE", wrapperAddress: "x" });
  expect(Array.isArray(result.failures)).toBe(true);
  expect(result.failures.length).toBeGreaterThan(0);
}

describe("provider code in state", () => {
  it.each(CLASSES)("%s: small, portable, secret-free, and loadable", async (kind) => {
    const text = providerCode(kind);
    // Stored twice per resource (inputs and outputs), and the state is rewritten after every step.
    expect(text.length).toBeLessThanOrEqual(250);
    expect(text).not.toContain(SECRET_PRIVATE_KEY);
    // Nothing of this machine or of keyform's implementation is baked in.
    expect(text).not.toContain(path.resolve(__dirname, "../.."));
    expect(text).not.toMatch(/zod|KeyformClient|ApiKeyStamper|schemaFailures/);
    expect(text).toContain(`"${kind}"`);
    expect(text).toContain('"keyform/provider-runtime"');
    await checkThrough(text);
  });

  it.each(CLASSES)("%s: the code earlier versions stored still loads the runtime", async (kind) => {
    await checkThrough(EARLIER_PROVIDER_CODE(kind));
  });
});

describe("resource registration (engine mocked)", () => {
  it("type tokens, declared outputs, defaults, no credentials in inputs", async () => {
    const registered: Array<{ type: string; name: string; inputs: Record<string, unknown> }> = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered.push({ type: args.type, name: args.name, inputs: args.inputs });
          const id = `${args.name}-id`;
          const extra: Record<string, unknown> =
            args.type.endsWith(":ApiKey") ? { apiKeyId: id, publicKey: "02" + "aa".repeat(32), privateKey: "77".repeat(32) } : {};
          return { id, state: { ...args.inputs, ...extra } };
        },
        call: (args) => args.inputs,
      },
      "proj",
      "stack",
      false,
    );
    const tag = new keyform.UserTag("ops", { userIds: ["u1"] });
    new keyform.Policy("p", { policyName: "p", effect: "EFFECT_ALLOW" });
    const key = new keyform.ApiKey("k", { userId: "u1", apiKeyName: "k" });
    new keyform.Invitation("i", { receiverUserName: "A", receiverUserEmail: "a@example.com", accessType: "ACCESS_TYPE_WEB", senderUserId: "u1" });
    new keyform.SmartContractInterface("s", { smartContractAddress: "0x" + "11".repeat(20), smartContractInterface: [], type: "ETHEREUM", label: "l" });
    new keyform.EarnWrapperState("e", { wrapperAddress: "0x" + "22".repeat(20), depositsDisabled: true });
    const user = new keyform.User("alice");
    new keyform.RootQuorum("q", { threshold: 1, userIds: ["u1"] });
    new keyform.WebhookEndpoint("w", { url: "https://example.com/hook", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
    new keyform.IpAllowlist("a", { rules: [{ cidr: "10.0.0.0/8" }] });
    const wallet = new keyform.Wallet("treasury", { accounts: [] });
    const signer = new keyform.PrivateKey("signer", { curve: "CURVE_SECP256K1" });
    new keyform.PrivateKeyTag("hot", { privateKeyIds: ["k1"] });
    new keyform.SessionProfile("sp", { scope: "read" });

    const value = <T>(o: import("@pulumi/pulumi").Output<T>) => new Promise<T>((resolve) => o.apply((v) => resolve(v)));
    expect(await value(tag.userTagName)).toBe("ops"); // defaults to the resource name
    expect(await value(key.privateKey)).toBe("77".repeat(32));
    expect(await value(user.userName)).toBe("alice");
    expect(await value(wallet.walletName)).toBe("treasury");
    expect(await value(signer.privateKeyName)).toBe("signer");

    expect(registered.map((r) => r.type).sort()).toEqual(CLASSES.map((c) => `pulumi-nodejs:dynamic/keyform:${c}`).sort());
    for (const r of registered) {
      expect(r.inputs.__provider).toBe(providerCode(r.type.slice(r.type.lastIndexOf(":") + 1)));
      expect(JSON.stringify(r.inputs)).not.toContain(SECRET_PRIVATE_KEY);
      expect(Object.keys(r.inputs)).not.toContain("apiPrivateKey");
    }
  });

  it("the import resource option fails at once, pointing to importId and the provider plugin", () => {
    expect(() => new keyform.Policy("adopted", { policyName: "p", effect: "EFFECT_ALLOW" }, { import: "pol-1" })).toThrow(
      'keyform.Policy "adopted": the import resource option does not work with Pulumi dynamic resources. ' +
        'Use the importId argument instead (new keyform.Policy("adopted", { ..., importId: <id> })), ' +
        "or the keyform provider plugin: pulumi import keyform:index:Policy adopted <id>",
    );
    expect(() => new keyform.ApiKey("k2", { userId: "u1", apiKeyName: "k" }, { import: "key-1" })).toThrow(/importId/);
  });

  it.each(registeredSpecs().map((spec) => spec.kind))("%s: the import resource option is caught", (kind) => {
    const Resource = (keyform as unknown as Record<string, new (name: string, args: object, opts: object) => unknown>)[kind]!;
    expect(() => new Resource("adopted", {}, { import: "some-id" })).toThrow(`keyform.${kind} "adopted": the import resource option does not work`);
  });
});
