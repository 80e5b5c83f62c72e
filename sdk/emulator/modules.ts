/**
 * @module emulator/modules
 * The areas the emulator serves. A new area (wallets, auth flows, webhooks …) is one more
 * {@link EmulatorModule} in this list; nothing else in the core changes.
 */
import { activitiesModule } from "./handlers/activities";
import { apiKeysModule } from "./handlers/api-keys";
import { earnModule } from "./handlers/earn";
import { invitationsModule } from "./handlers/invitations";
import { createOrganizationModule } from "./handlers/organization";
import { policiesModule } from "./handlers/policies";
import { smartContractsModule } from "./handlers/smart-contracts";
import type { EmulatorModule } from "./handlers/types";
import { userTagsModule } from "./handlers/user-tags";
import { usersModule } from "./handlers/users";

/** The core modules plus `extra`, in registration order. */
export function defaultModules(extra: readonly EmulatorModule[] = []): EmulatorModule[] {
  const modules: EmulatorModule[] = [];
  modules.push(
    createOrganizationModule(() => modules),
    usersModule,
    userTagsModule,
    policiesModule,
    apiKeysModule,
    invitationsModule,
    smartContractsModule,
    earnModule,
    activitiesModule,
    ...extra,
  );
  return modules;
}
