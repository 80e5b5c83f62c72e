import { describe, expect, it } from "vitest";
import type { AccessChange, AccessDiff } from "../../sdk/policy";
import { accessRows, accessTableMarkdown } from "../../sdk/gitops/access-table";

const names = { users: { "u-alice": "alice", "u-bob": "bob" }, tags: { "t-ops": "ops" }, members: { "t-ops": ["alice"] } };

function change(over: Partial<AccessChange>): AccessChange {
  return {
    direction: "gains",
    how: "alone",
    users: [{ id: "u-bob", name: "bob" }],
    who: "bob",
    kinds: ["CREATE_WALLET"],
    witness: { type: "ACTIVITY_TYPE_CREATE_WALLET", approvers: [{ id: "u-bob", tags: [] }] },
    before: "OUTCOME_DENY_IMPLICIT",
    after: "OUTCOME_ALLOW",
    confirmed: true,
    ...over,
  } as AccessChange;
}

function diff(changes: AccessChange[]): AccessDiff {
  return { proved: true, changes, notProved: [], principals: "any user", symbolic: false, outsiders: [], migrations: [], userCount: 2, typeCount: 10, truncated: false };
}

describe("the access table of a pull request comment", () => {
  it("folds changes that differ only in their kinds and targets into one row", () => {
    const rows = accessRows(
      diff([change({}), change({ kinds: ["CREATE_WALLET_ACCOUNTS"], target: "another wallet" }), change({ direction: "loses", kinds: ["CREATE_USER_TAG"] })]),
      names,
    );
    expect(rows.map((r) => [r.change, r.who, [...r.kinds], [...r.targets]])).toEqual([
      ["gains", "bob", ["CREATE_WALLET", "CREATE_WALLET_ACCOUNTS"], ["no signing target", "another wallet"]],
      ["loses", "bob", ["CREATE_USER_TAG"], ["no signing target"]],
    ]);
  });

  it("never leaves who empty, and names approvers as the organization does", () => {
    const madeUp = { id: "user-1", tags: ["t-ops"] };
    const markdown = accessTableMarkdown(
      diff([change({ users: [], how: "with approvers", witness: { type: "ACTIVITY_TYPE_CREATE_WALLET", approvers: [{ id: "user-0", tags: ["t-ops"] }, madeUp, { id: "u-alice", tags: [] }] } })]),
      names,
    );
    const row = markdown.split("\n").find((l) => l.startsWith("| **gains**"))!;
    expect(row.split("|")[2]!.trim()).toBe("a user tagged ops (none of the organization's users yet)");
    expect(row).toContain("with approval of a user tagged ops (alice), alice");
    expect(markdown).not.toMatch(/\buser-\d/);
  });
});
