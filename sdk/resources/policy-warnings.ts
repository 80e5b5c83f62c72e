/**
 * @module resources/policy-warnings
 * Lint warnings of policy expressions (mixed `&&`/`||`, `wallet` with `private_key`, an
 * unscoped signing ALLOW), logged on the resource from the program: a dynamic provider's
 * `check` can only fail, so warnings are raised here, where `pulumi preview` shows them.
 * Errors are left to the provider's `check`, which fails the preview.
 *
 * The warning names the resource in its text instead of attaching it: the SDK chains every log
 * call behind the URN of the resource it is attached to, so a log on a resource whose
 * registration fails would hold back every later log of the process (an inline program of the
 * Automation API then never finishes).
 */
import * as pulumi from "@pulumi/pulumi";
import type { DeclaredExpressions } from "../policy";
import { lintWarnings } from "./runtime/policy-expressions";

type Inputs = { [K in keyof DeclaredExpressions]?: pulumi.Input<string | undefined> };

/** Logs the lint warnings of `args` for the resource `label` (e.g. `Policy "allow-ops"`) once its values are known. */
export function warnAboutPolicyExpressions(label: string, args: Inputs): void {
  const keys = Object.keys(args) as (keyof DeclaredExpressions)[];
  pulumi.all(keys.map((key) => args[key])).apply((values) => {
    const declared = Object.fromEntries(keys.map((key, i) => [key, values[i]])) as DeclaredExpressions;
    for (const line of lintWarnings(label, declared)) void pulumi.log.warn(line);
  });
}
