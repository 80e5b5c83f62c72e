/**
 * The example organization's signing policy end to end: examples/org brought up by the real
 * engine on a fresh emulator, then its treasury member (not root) signs through the service's
 * own viem signer (@turnkey/viem, unchanged): a payment to the payee is signed, one to another
 * address is refused, and one above the limit waits for an admin, shows in the dashboard's feed
 * with why it waits, and is signed once the admin approves it through the dashboard.
 */
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { createAccount } from "@turnkey/viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, recoverTransactionAddress, serializeTransaction, type Hex } from "viem";
import { deployEarnWrapper } from "../../examples/org/seed";
import { KeyformClient } from "../../sdk/client/client";
import { DASHBOARD_API } from "../../sdk/emulator/dashboard/paths";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { emulatorEnv } from "../resources/harness/engine-harness";
import { createWorkDirStack, repoRoot, type TestStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { exampleSettings, exampleStackConfig } from "./plugin-support";

let t: TestEmulator;
let handle: TestStack;
let orgId: string;
let treasuryEth: Hex;
let bob: { id: string; key: ReturnType<typeof generateApiKeyPair> };
let aliceId: string;
const settings = exampleSettings();

beforeAll(async () => {
  t = await startTestEmulator();
  orgId = t.emulator.bootstrap.organizationId;
  await deployEarnWrapper(t.client, settings);
  handle = await createWorkDirStack({ workDir: repoRoot, envVars: emulatorEnv(t.emulator), config: exampleStackConfig() });
  const up = await handle.stack.up();
  const outputs = up.outputs as Record<string, { value: any }>;
  treasuryEth = outputs.treasuryAddresses!.value[0];
  aliceId = outputs.userIdsByName!.value.alice;
  // The treasury team's bob gets an API key (people sign in with passkeys; a key keeps the test headless).
  bob = { id: outputs.userIdsByName!.value.bob, key: generateApiKeyPair() };
  await t.client.createApiKeys({ userId: bob.id, apiKeys: [{ apiKeyName: "bob-laptop", publicKey: bob.key.publicKey, curveType: "API_KEY_CURVE_P256" }] });
}, 900_000);
afterAll(async () => {
  await handle?.cleanup();
  await t?.stop();
});

const payment = (to: string, value: bigint) =>
  ({ type: "eip1559", chainId: 8453, nonce: 0, to: to as Hex, value, gas: 21000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000n }) as const;

describe("the example's treasury policies, signed through @turnkey/viem by a non-root treasury member", () => {
  it("signs a payment to the payee within the limit at once", async () => {
    const http = new TurnkeyClient({ baseUrl: t.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey: bob.key.publicKey, apiPrivateKey: bob.key.privateKey }));
    const account = await createAccount({ client: http, organizationId: orgId, signWith: treasuryEth });
    const signed = await account.signTransaction(payment(settings.treasuryPayee, parseEther("0.5")));
    expect(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toBe(treasuryEth);
  });

  it("refuses a payment to another address", async () => {
    const http = new TurnkeyClient({ baseUrl: t.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey: bob.key.publicKey, apiPrivateKey: bob.key.privateKey }));
    const account = await createAccount({ client: http, organizationId: orgId, signWith: treasuryEth });
    await expect(account.signTransaction(payment("0x2222222222222222222222222222222222222222", 1n))).rejects.toThrow(/sufficient permissions/);
  });

  it("holds a payment above the limit for an admin; the dashboard shows why and the admin's approval there signs it", async () => {
    const bobClient = new KeyformClient({
      baseUrl: t.emulator.url,
      organizationId: orgId,
      stamper: new ApiKeyStamper({ apiPublicKey: bob.key.publicKey, apiPrivateKey: bob.key.privateKey }),
      retry: { maxRetries: 0 },
    });
    const unsignedTransaction = serializeTransaction(payment(settings.treasuryPayee, parseEther("2"))).slice(2);
    const held = await bobClient.submitActivity("signTransaction", { signWith: treasuryEth, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" }, { allowIncomplete: true });
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    const feed = async () => (await (await fetch(`${t.emulator.url}${DASHBOARD_API}/organizations/${orgId}/activities`)).json()) as any[];
    const waiting = (await feed()).find((a) => a.id === held.id);
    expect(waiting.waiting).toMatchObject({ heldBy: "policy consensus", approvals: 1 });
    expect(waiting.waiting.reason).toMatch(/Treasury signing needs admin approvals/);
    expect(waiting.waiting.voters.map((v: { id: string }) => v.id)).toContain(aliceId);

    const vote = await fetch(`${t.emulator.url}${DASHBOARD_API}/organizations/${orgId}/votes`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-keyform-dashboard": "1" },
      body: JSON.stringify({ fingerprint: held.fingerprint, userId: aliceId, approve: true }),
    });
    expect(vote.status).toBe(200);
    const done = (await t.client.getActivity({ activityId: held.id })).activity;
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const signed = `0x${(done.result as { signTransactionResult: { signedTransaction: string } }).signTransactionResult.signedTransaction}`;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toBe(treasuryEth);
    expect((await feed()).find((a) => a.id === held.id).status).toBe("ACTIVITY_STATUS_COMPLETED");
  });
});
