/**
 * The provider runtime's per-run state is in the context `configure` creates, not in modules:
 * the provider objects of one dynamic-provider host run share one context, two runs (or the
 * plugin's configurations, or a direct caller) never see each other's settings, claims or
 * caches, and configuring a provider object leaves direct calls alone.
 */
import { describe, expect, it } from "vitest";
import { directContext, ProviderContext } from "../../sdk/resources/runtime/context";
import type { Session } from "../../sdk/resources/runtime/client";
import { claim, isClaimed } from "../../sdk/resources/runtime/earlier-work";
import { configure, contextOfConfiguration, withContext } from "../../sdk/resources/runtime/framework";
import { handlerFor } from "../../sdk/resources/runtime";
import { forgetSharedReads, sharedRead } from "../../sdk/resources/runtime/shared-reads";

/** A session of `context` (only what claims and shared reads look at). */
const sessionOf = (context: ProviderContext, organizationId = "org-1") => ({ organizationId, client: {}, credentialPublicKey: "02ab", context }) as unknown as Session;
const hostConfig = (raw: Record<string, string>) => ({ config: { get: (key: string) => raw[key], rawConfig: raw } });

describe("ProviderContext", () => {
  it("the dynamic host's provider objects of one run share one context; another run gets its own", () => {
    const run = { "keyform:organizationId": "org-a" };
    const first = contextOfConfiguration(hostConfig(run));
    expect(contextOfConfiguration(hostConfig(run))).toBe(first);
    const other = contextOfConfiguration(hostConfig({ "keyform:organizationId": "org-b" }));
    expect(other).not.toBe(first);
    expect(first.engineRun?.configKeys).toEqual(["keyform:organizationId"]);
  });

  it("configure on a provider object keeps the context there and leaves direct calls alone", () => {
    const before = directContext();
    const provider = { __proto__: handlerFor("UserTag"), configure } as unknown as { configure: typeof configure; context?: ProviderContext };
    const context = provider.configure({ config: { get: (key) => (key === "keyform:organizationId" ? "org-p" : undefined) } });
    expect(provider.context).toBe(context);
    expect(directContext()).toBe(before);
    expect(context.settings().organizationId).toBe("org-p");

    // Called directly, it becomes the context of direct calls.
    const direct = configure({ config: { get: (key) => (key === "keyform:organizationId" ? "org-d" : undefined) } });
    expect(directContext()).toBe(direct);
    expect(direct.settings().organizationId).toBe("org-d");
    expect(withContext(handlerFor("UserTag"), context)).toHaveProperty("context", context);
  });

  it("claims and shared reads of one context are not another's", async () => {
    const a = new ProviderContext(undefined, undefined);
    const b = new ProviderContext(undefined, undefined);
    claim(sessionOf(a), "UserTag", "tag-1");
    expect(isClaimed(sessionOf(a), "UserTag", "tag-1")).toBe(true);
    expect(isClaimed(sessionOf(b), "UserTag", "tag-1")).toBe(false);
    expect(isClaimed(sessionOf(a, "org-2"), "UserTag", "tag-1")).toBe(false);

    let loads = 0;
    const load = async () => ++loads;
    const sessionA = sessionOf(a);
    expect(await sharedRead(sessionA, "list_user_tags", load)).toBe(1);
    expect(await sharedRead(sessionA, "list_user_tags", load)).toBe(1);
    // A write through another context's clients leaves this one's reads valid...
    forgetSharedReads(b);
    expect(await sharedRead(sessionA, "list_user_tags", load)).toBe(1);
    // ...and one through its own makes them stale.
    forgetSharedReads(a);
    expect(await sharedRead(sessionA, "list_user_tags", load)).toBe(2);
    // The same client used by another context reads for that context: the cache is the context's.
    const sessionB = { ...sessionA, context: b } as Session;
    expect(await sharedRead(sessionB, "list_user_tags", load)).toBe(3);
    expect(await sharedRead(sessionA, "list_user_tags", load)).toBe(2);
  });
});
