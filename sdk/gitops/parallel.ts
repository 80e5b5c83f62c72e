/**
 * How many resource operations the Pulumi engine runs at once for keyform stacks.
 *
 * Why: a plural activity (`create_policies`, `delete_users`, …) can only gather the creates or
 * deletes that are in flight together, and the engine's own default is 4 per CPU (8 on a
 * two-core runner): a 300-object organization would go out in dozens of activities, each a
 * whole slot of a 1 request/s plan. The provider paces every request itself, so more operations
 * at once cost the service nothing. The CLI reads `PULUMI_PARALLEL` when `--parallel` is not
 * given; a pipeline's own `PULUMI_PARALLEL` wins.
 */
export const DEFAULT_PARALLEL = 500;

/** `PULUMI_PARALLEL` for the CLI: the environment's own, else {@link DEFAULT_PARALLEL}. */
export function pulumiParallel(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.PULUMI_PARALLEL;
  return own !== undefined && own !== "" ? own : String(DEFAULT_PARALLEL);
}
