/**
 * @module resources/data-calls
 * How a data function runs in a Pulumi program (the functions themselves, `data.ts`, are
 * generated from the data function table): in the program's process, not in a provider, with
 * the settings of the stack config (`keyform:*`) or the `KEYFORM_*` environment.
 */
import * as pulumi from "@pulumi/pulumi";
import { runDataFunction, type DataArgs, type DataFunctionName, type DataResult } from "./runtime/queries";
import { ProviderContext } from "./runtime/context";

/** `T` with every property accepting a `pulumi.Input`. */
export type InputsOf<T> = { [P in keyof T]: pulumi.Input<T[P]> };

/**
 * The program's own context: settings from the stack config `keyform:*` (the project's config,
 * read through the engine), then the `KEYFORM_*` environment, and its own clients. getConfig
 * reads the raw value, secrets included, without the plaintext-secret warning.
 */
const programContext = new ProviderContext((key) => pulumi.runtime.getConfig(key), undefined);

/** Runs data function `name` with the program's settings. */
export async function callDataFunction<N extends DataFunctionName>(name: N, args: DataArgs<N> | undefined): Promise<DataResult<N>> {
  try {
    return await runDataFunction(programContext, name, args);
  } catch (error) {
    // A RunError is reported by Pulumi as its message alone: one line that names the setting
    // to check, instead of the stack traces of every layer and cause.
    throw new pulumi.RunError(error instanceof Error ? error.message : String(error));
  }
}

/** `fn` called once its `Input` arguments are known. */
export function outputOf<A extends object, R>(fn: (args: A) => Promise<R>, args: InputsOf<A> | undefined): pulumi.Output<R> {
  return pulumi.output(args ?? {}).apply((plain) => fn(plain as unknown as A));
}
