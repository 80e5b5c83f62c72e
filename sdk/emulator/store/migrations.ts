/**
 * @module emulator/store/migrations
 * The core schema, one entry per version. `PRAGMA user_version` records the version a
 * database file is at; `migrate` applies the missing steps in order, each in its own
 * transaction, so a crash mid-migration leaves the file at the previous version.
 * Never edit a released step: append a new one.
 *
 * Times are epoch milliseconds (INTEGER). Names that the service keeps unique have a
 * UNIQUE index, so a duplicate is refused by the database even if a handler forgets.
 */

/** SQL of each core schema version; index 0 is version 1. */
export const CORE_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    parent_id TEXT REFERENCES organizations(id),
    root_quorum_json TEXT NOT NULL DEFAULT '{"threshold":1,"userIds":[]}',
    created_ms INTEGER NOT NULL
  );

  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    name TEXT NOT NULL,
    email TEXT,
    phone_number TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX users_name ON users(org_id, name);

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    public_key TEXT NOT NULL,
    credential_type TEXT NOT NULL,
    expiration_seconds TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX api_keys_name ON api_keys(user_id, name);
  -- Stamps carry the public key in lowercase; keys are matched case-insensitively.
  CREATE UNIQUE INDEX api_keys_public_key ON api_keys(org_id, lower(public_key));
  CREATE INDEX api_keys_by_public_key ON api_keys(lower(public_key));

  CREATE TABLE authenticators (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    credential_id TEXT NOT NULL,
    attestation_json TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );

  CREATE TABLE oauth_providers (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    issuer TEXT NOT NULL,
    audience TEXT NOT NULL,
    subject TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );

  CREATE TABLE tags (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    name TEXT NOT NULL,
    tag_type TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX tags_name ON tags(org_id, tag_type, name);

  CREATE TABLE user_tags (
    user_id TEXT NOT NULL REFERENCES users(id),
    tag_id TEXT NOT NULL REFERENCES tags(id),
    PRIMARY KEY (user_id, tag_id)
  );
  CREATE INDEX user_tags_by_tag ON user_tags(tag_id);

  CREATE TABLE policies (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    name TEXT NOT NULL,
    effect TEXT NOT NULL,
    condition TEXT,
    consensus TEXT,
    notes TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX policies_name ON policies(org_id, name);

  CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    receiver_user_name TEXT NOT NULL,
    receiver_email TEXT NOT NULL,
    receiver_user_tags_json TEXT NOT NULL,
    access_type TEXT NOT NULL,
    sender_user_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );

  CREATE TABLE smart_contract_interfaces (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    address TEXT NOT NULL,
    interface_text TEXT NOT NULL,
    type TEXT NOT NULL,
    label TEXT NOT NULL,
    notes TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX sci_address_type ON smart_contract_interfaces(org_id, address, type);

  CREATE TABLE earn_wrappers (
    wrapper_address TEXT NOT NULL,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    vault_address TEXT NOT NULL,
    chain_caip2 TEXT NOT NULL,
    client_fee_bps INTEGER NOT NULL,
    client_fee_wallet TEXT NOT NULL,
    splitter_address TEXT NOT NULL,
    deploy_request_id TEXT NOT NULL,
    deposits_disabled INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (org_id, wrapper_address)
  );
  CREATE UNIQUE INDEX earn_wrappers_deploy ON earn_wrappers(deploy_request_id);

  CREATE TABLE activities (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    intent_json TEXT NOT NULL,
    result_json TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX activities_fingerprint ON activities(fingerprint);
  CREATE INDEX activities_by_org ON activities(org_id, seq);

  CREATE TABLE module_migrations (module TEXT PRIMARY KEY, version INTEGER NOT NULL);
  `,
  /* v2: consensus. A gated activity keeps its validated request until the root quorum decides;
     votes are one per user and activity. `failure_json` holds `{code, message, details}` of an
     activity that failed when it finally ran. */ `
  ALTER TABLE activities ADD COLUMN failure_json TEXT;

  CREATE TABLE pending_activities (
    activity_id TEXT PRIMARY KEY REFERENCES activities(id),
    operation TEXT NOT NULL,
    caller_json TEXT NOT NULL,
    parameters_json TEXT NOT NULL
  );

  CREATE TABLE activity_votes (
    id TEXT PRIMARY KEY,
    activity_id TEXT NOT NULL REFERENCES activities(id),
    user_id TEXT NOT NULL,
    selection TEXT NOT NULL,
    message TEXT NOT NULL,
    public_key TEXT NOT NULL,
    signature TEXT NOT NULL,
    scheme TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX activity_votes_one_per_user ON activity_votes(activity_id, user_id);
  `,
];
