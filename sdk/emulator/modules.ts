/**
 * @module emulator/modules
 * The areas the emulator serves. A new area (wallets, auth flows, webhooks …) is one more
 * {@link EmulatorModule} in this list; nothing else in the core changes.
 */
import { activitiesModule } from "./handlers/activities";
import { apiKeysModule } from "./handlers/api-keys";
import { authModule } from "./handlers/auth-module";
import { earnModule } from "./handlers/earn";
import { earnWithdrawalsModule } from "./handlers/earn-withdrawals";
import { historyModule } from "./handlers/history";
import { invitationsModule } from "./handlers/invitations";
import { ipAllowlistsModule } from "./handlers/ip-allowlists";
import { createOrganizationModule } from "./handlers/organization";
import { policiesModule } from "./handlers/policies";
import { policyEvaluationsModule } from "./handlers/policy-evaluations";
import { privateKeyTagsModule } from "./handlers/private-key-tags";
import { privateKeysModule } from "./handlers/private-keys";
import { sessionProfilesModule } from "./handlers/session-profiles";
import { signingModule } from "./handlers/signing";
import { smartContractsModule } from "./handlers/smart-contracts";
import type { EmulatorModule } from "./handlers/types";
import { userTagsModule } from "./handlers/user-tags";
import { usersModule } from "./handlers/users";
import { walletsModule } from "./handlers/wallets";
import { webhooksModule } from "./handlers/webhooks";

/** The core modules plus `extra`, in registration order. */
export function defaultModules(extra: readonly EmulatorModule[] = []): EmulatorModule[] {
  const modules: EmulatorModule[] = [];
  modules.push(
    createOrganizationModule(() => modules),
    usersModule,
    userTagsModule,
    policiesModule,
    policyEvaluationsModule,
    apiKeysModule,
    invitationsModule,
    smartContractsModule,
    earnModule,
    activitiesModule,
    walletsModule,
    privateKeysModule,
    privateKeyTagsModule,
    earnWithdrawalsModule,
    historyModule,
    webhooksModule,
    sessionProfilesModule,
    ipAllowlistsModule,
    signingModule,
    authModule,
    ...extra,
  );
  return modules;
}
