/**
 * @module emulator/handlers/organization
 * whoami and get_organization (docs/service-facts.md#39-organization-and-identity). get_organization is the only place
 * invitations can be read; other modules add their parts (wallets, private keys) through
 * `EmulatorModule.organizationData`. update_root_quorum sets who decides consensus (see
 * `consensus.ts`); like every activity it waits for the current quorum when that needs votes.
 */
import { invalidArgument, notFound } from "../errors";
import type { EmulatorModule, QueryContext } from "./types";
import { invitationView, policyView, tagView, userView } from "./views";

/** @param modules all modules of the running emulator (read at request time). */
export function createOrganizationModule(modules: () => readonly EmulatorModule[]): EmulatorModule {
  return {
    name: "organization",
    setup: () => ({
      whoami(ctx) {
        const org = ctx.store.organizations.get(ctx.organizationId);
        const user = ctx.store.users.get(ctx.caller.organizationId, ctx.caller.userId);
        if (!org || !user) throw notFound(`organizationId: no organization found with id ${ctx.organizationId}`);
        return { organizationId: org.id, organizationName: org.name, userId: user.id, username: user.name };
      },

      updateRootQuorum(ctx, p) {
        const org = ctx.store.organizations.get(ctx.organizationId);
        if (!org) throw notFound(`organizationId: no organization found with id ${ctx.organizationId}`);
        if (p.userIds.length === 0) throw invalidArgument("userIds: the root quorum needs at least one user");
        const seen = new Set<string>();
        p.userIds.forEach((userId, i) => {
          if (seen.has(userId)) throw invalidArgument(`userIds[${i}]: user ${userId} is listed twice`);
          seen.add(userId);
          if (!ctx.store.users.get(org.id, userId)) throw notFound(`userIds[${i}]: no user with id ${userId} in organization ${org.id}`);
        });
        if (p.threshold < 1 || p.threshold > p.userIds.length) {
          throw invalidArgument(`threshold: must be between 1 and the number of userIds (${p.userIds.length}), got ${p.threshold}`);
        }
        ctx.store.organizations.setRootQuorum(org.id, { threshold: p.threshold, userIds: p.userIds });
        return {};
      },

      getOrganization(ctx: QueryContext) {
        const org = ctx.store.organizations.get(ctx.organizationId);
        if (!org) throw notFound(`organizationId: no organization found with id ${ctx.organizationId}`);
        const s = ctx.store;
        let data: Record<string, unknown> = {
          organizationId: org.id,
          name: org.name,
          users: s.users.list(org.id).map((u) => userView(s, u)),
          policies: s.policies.list(org.id).map(policyView),
          privateKeys: [],
          invitations: s.invitations.list(org.id).map(invitationView),
          tags: s.tags.listAll(org.id).map(tagView),
          rootQuorum: JSON.parse(org.root_quorum_json) as { threshold: number; userIds: string[] },
          features: [],
          wallets: [],
          smartContractInterfaceReferences: s.smartContractInterfaces.list(org.id).map((i) => ({
            smartContractInterfaceId: i.id,
            smartContractAddress: i.address,
          })),
        };
        for (const module of modules()) {
          if (module.organizationData) data = { ...data, ...module.organizationData(ctx) };
        }
        return { organizationData: data };
      },
    }),
  };
}
