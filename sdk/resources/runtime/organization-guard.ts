/**
 * @module resources/runtime/organization-guard
 * The message of a plan that would move an object to another organization. Every object's
 * state records the organization it was created in (`organizationId` output); `diff` fails
 * when the settings (or the object's own `organizationId` argument) now name another one,
 * instead of planning a replace, which would delete the object where it lives. A mistyped
 * `keyform:organizationId` must never cost a key or a wallet.
 */
import { settingLabel } from "./settings";

/** What the guard knows when it refuses a plan. */
export interface OrganizationMove {
  /** The object, for the message, e.g. `ApiKey 6f1c...`. */
  readonly what: string;
  /** The organization recorded in state: where the object lives. */
  readonly recorded: string;
  /** The organization the program or the settings name now. */
  readonly wanted: string;
  /** True when the resource's own `organizationId` argument names `wanted`, not the setting. */
  readonly fromInput: boolean;
}

/** One line saying what changed, that nothing will be moved, and what to do. */
export function organizationMoveMessage(move: OrganizationMove): string {
  const source = move.fromInput
    ? `its organizationId argument now says ${move.wanted}`
    : `the setting ${settingLabel("organizationId")} now says ${move.wanted}`;
  const fix = move.fromInput
    ? `If that is a mistake, set organizationId back to "${move.recorded}".`
    : `If the setting is wrong, set it back to ${move.recorded}; to keep this object there while the setting changes, set organizationId: "${move.recorded}" on the resource.`;
  return (
    `${move.what}: lives in organization ${move.recorded} (recorded in state), but ${source}. ` +
    `keyform never replaces or deletes an object because the organization changed. ${fix} ` +
    `To move it on purpose, see "Moving objects to another organization" in keyform's docs/settings.md.`
  );
}
