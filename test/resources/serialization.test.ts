/**
 * What Pulumi stores in state for each resource: the serialized provider must be small,
 * portable (no absolute paths, no copy of keyform) and free of secrets, and must work when
 * loaded back the way the dynamic-provider host loads it. Loads the compiled CommonJS from
 * dist/ with Node's own require, as the closure serializer needs (build first: `npx tsc -p .`).
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const requireCjs = createRequire(path.join(__dirname, "../../package.json"));
const pulumi = requireCjs("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
const requireFromString = requireCjs("require-from-string") as (code: string) => { handler(): Record<string, Function> };
const keyform = requireCjs("./dist/sdk/index.js") as typeof import("../../sdk/index");

const SECRET_PRIVATE_KEY = "5e".repeat(32);
const CLASSES = ["UserTag", "Policy", "ApiKey", "Invitation", "SmartContractInterface", "EarnWrapperState"] as const;

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

function providerOf(kind: (typeof CLASSES)[number]) {
  const Provider = (keyform as unknown as Record<string, new () => object>)[`${kind}Provider`]!;
  return new Provider();
}

describe("serialized providers", () => {
  it.each(CLASSES)("%s: small, portable, secret-free, and loadable", async (kind) => {
    const provider = providerOf(kind);
    const serialized = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    const text = serialized.text;
    expect(serialized.containsSecrets).toBe(false);
    expect(text.length).toBeLessThan(6_000);
    expect(text).not.toContain(SECRET_PRIVATE_KEY);
    // Nothing of this machine or of keyform's implementation is baked in.
    expect(text).not.toContain(path.resolve(__dirname, "../.."));
    expect(text).not.toMatch(/zod|KeyformClient|ApiKeyStamper|schemaFailures/);
    expect(text).toContain(`"${kind}"`);
    expect(text).toContain('"keyform/provider-runtime"');

    // Load it as the dynamic-provider host does and run a check through it.
    const loaded = requireFromString(text).handler();
    const result = await loaded.check!({}, { policyName: "p", effect: "EFFECT_NOPE", wrapperAddress: "x" });
    expect(Array.isArray(result.failures)).toBe(true);
    expect(result.failures.length).toBeGreaterThan(0);
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

    const value = <T>(o: import("@pulumi/pulumi").Output<T>) => new Promise<T>((resolve) => o.apply((v) => resolve(v)));
    expect(await value(tag.userTagName)).toBe("ops"); // defaults to the resource name
    expect(await value(key.privateKey)).toBe("77".repeat(32));

    expect(registered.map((r) => r.type).sort()).toEqual(CLASSES.map((c) => `pulumi-nodejs:dynamic/keyform:${c}`).sort());
    for (const r of registered) {
      expect(typeof r.inputs.__provider).toBe("string");
      expect(JSON.stringify(r.inputs)).not.toContain(SECRET_PRIVATE_KEY);
      expect(Object.keys(r.inputs)).not.toContain("apiPrivateKey");
    }
  });
});
