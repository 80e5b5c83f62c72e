/**
 * @module emulator/store
 * The core store: one small class per table family over one SQLite connection. Handlers use
 * it inside the activity's transaction; modules with their own tables (wallets, auth flows,
 * webhooks) build their own store classes on `db` the same way.
 */
import type { Db } from "./database";
import { ActivityStore } from "./activities";
import { ApiKeyStore } from "./api-keys";
import { ConsensusStore } from "./consensus";
import { EarnStore } from "./earn";
import { InvitationStore } from "./invitations";
import { MetaStore } from "./meta";
import { OrganizationStore } from "./organizations";
import { PolicyStore } from "./policies";
import { SmartContractInterfaceStore } from "./smart-contracts";
import { TagStore } from "./tags";
import { UserStore } from "./users";

export type { Db, ModuleMigrations } from "./database";
export { openDatabase, DATABASE_FILE } from "./database";
export * from "./time";
export type { ActivityRow } from "./activities";
export type { ApiKeyRow } from "./api-keys";
export type { PendingActivityRow, VoteRow } from "./consensus";
export { apiKeyExpiresAtMs } from "./api-keys";
export type { EarnWrapperRow } from "./earn";
export type { InvitationRow } from "./invitations";
export type { OrganizationRow } from "./organizations";
export type { PolicyRow } from "./policies";
export type { SmartContractInterfaceRow } from "./smart-contracts";
export type { TagRow } from "./tags";
export type { UserRow, AuthenticatorRow, OauthProviderRow } from "./users";

/** All core tables of one data directory. */
export class Store {
  readonly meta: MetaStore;
  readonly organizations: OrganizationStore;
  readonly users: UserStore;
  readonly apiKeys: ApiKeyStore;
  readonly tags: TagStore;
  readonly policies: PolicyStore;
  readonly invitations: InvitationStore;
  readonly smartContractInterfaces: SmartContractInterfaceStore;
  readonly earn: EarnStore;
  readonly activities: ActivityStore;
  readonly consensus: ConsensusStore;

  constructor(readonly db: Db) {
    this.meta = new MetaStore(db);
    this.organizations = new OrganizationStore(db);
    this.users = new UserStore(db);
    this.apiKeys = new ApiKeyStore(db);
    this.tags = new TagStore(db);
    this.policies = new PolicyStore(db);
    this.invitations = new InvitationStore(db);
    this.smartContractInterfaces = new SmartContractInterfaceStore(db);
    this.earn = new EarnStore(db);
    this.activities = new ActivityStore(db);
    this.consensus = new ConsensusStore(db);
  }
}
