/**
 * Points the provider runtime of a test process at a server, as a provider process started by
 * the engine would see it: the `KEYFORM_*` environment with the emulator's credentials, and no
 * stack config.
 */
import { configure } from "../../../sdk/resources/runtime";
import type { Bootstrap } from "../../../sdk/emulator-contract";

/**
 * Sets the settings for `baseUrl` (the emulator, or a proxy in front of it).
 * @returns the function that puts the environment back as it was.
 */
export function useRuntimeSettings(baseUrl: string, bootstrap: Pick<Bootstrap, "organizationId" | "apiPublicKey" | "apiPrivateKey">): () => void {
  const values: Record<string, string> = {
    KEYFORM_BASE_URL: baseUrl,
    KEYFORM_ORGANIZATION_ID: bootstrap.organizationId,
    KEYFORM_API_PUBLIC_KEY: bootstrap.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: bootstrap.apiPrivateKey,
  };
  const saved: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(values)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
  configure({ config: { get: () => undefined } });
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}
