/**
 * @module resources/provider
 * What keyform's dynamic resource classes register, and the provider code Pulumi stores in
 * every keyform resource's state (`__provider`).
 *
 * The provider code is deliberately tiny and holds nothing but the resource class name: it
 * loads keyform's provider runtime and hands the dynamic-provider host the runtime handler of
 * that class. So the state carries no secrets and no copy of keyform's code, and the code that
 * runs is the keyform installed where the Pulumi program runs (a user's
 * `node_modules/keyform`, or this package itself).
 *
 * Size matters: the engine rewrites the whole state after every step, and the host stores the
 * code twice per resource (in the inputs and the outputs), so every byte here is written 2N
 * times per resource in an `up` of N resources. The code is therefore written by hand (about
 * 190 bytes) instead of being produced by `pulumi.dynamic.Resource`, whose closure serializer
 * wraps even a one-line provider in about 750 bytes of scaffolding.
 */
import * as pulumi from "@pulumi/pulumi";
import { URN_INPUT } from "./runtime/plan-census";

/**
 * The `__provider` module text of resource class `kind`, as the dynamic-provider host loads it:
 * `require-from-string`, then `exports.handler()` for the provider object, then its `configure`
 * once per process before any other call.
 *
 * `keyform/provider-runtime` is found from the host's module paths (the project's
 * `node_modules`), else as seen from the working directory (which finds this package when the
 * program runs inside it). The object's prototype is the runtime handler of `kind`, where check,
 * diff, create, read, update and delete come from. It uses only `handlerFor` and `configure`,
 * the runtime's stable exports: states written by earlier versions load the same two.
 */
export function providerCode(kind: string): string {
  return (
    'exports.handler=()=>{let m="keyform/provider-runtime",r;' +
    'try{r=require(m)}catch{r=require("module").createRequire(process.cwd()+"/")(m)}' +
    `return{__proto__:r.handlerFor(${JSON.stringify(kind)}),configure:r.configure}}`
  );
}

/**
 * The type token of keyform dynamic resource `Kind` is this prefix and `Kind`: the token
 * `pulumi.dynamic.Resource` gives module `keyform` and type `Kind`.
 */
export const DYNAMIC_TYPE_PREFIX = "pulumi-nodejs:dynamic/keyform:";

/** The arguments of `pulumi.CustomResource`'s constructor. */
export type CustomResourceArguments = [type: string, name: string, props: pulumi.Inputs, opts: pulumi.CustomResourceOptions | undefined];

/**
 * What a keyform resource class of `kind` passes to `pulumi.CustomResource`: type
 * `pulumi-nodejs:dynamic/keyform:<kind>`, served by Pulumi's Node.js dynamic-provider host
 * exactly as `pulumi.dynamic.Resource` registers it (same type token, so the same URNs), with
 * {@link providerCode} as its provider.
 *
 * The classes extend `pulumi.CustomResource` directly and call this inside their `super(...)`
 * instead of sharing a base class: the SDK records as the resource's source position the frame
 * three classes below `Resource` (Resource, CustomResource, the class, then the program), so one
 * more class in between would make every resource's position a line of keyform instead of the
 * line of the program that declared it, and add that frame to every resource's state.
 */
export function dynamicResourceArguments(
  kind: string,
  name: string,
  props: pulumi.Inputs,
  opts: pulumi.CustomResourceOptions | undefined,
): CustomResourceArguments {
  const type = `${DYNAMIC_TYPE_PREFIX}${kind}`;
  return [type, name, { ...props, __provider: providerCode(kind), [URN_INPUT]: resourceUrn(type, name, opts?.parent) }, dynamicResourceOptions(kind, name, opts)];
}

/**
 * The URN the engine gives resource `name` of `type` under `parent`: the dynamic-provider host
 * passes no URN to the provider, so the resource hands its own over as a hidden input. With it,
 * `check` tells two resources of a program apart (`plan-census.ts`).
 */
export function resourceUrn(type: string, name: string, parent: pulumi.Resource | undefined): pulumi.Input<string> {
  const stack = pulumi.getStack();
  const project = pulumi.getProject();
  if (parent === undefined) return `urn:pulumi:${stack}::${project}::${type}::${name}`;
  return parent.urn.apply((parentUrn) => childUrn(parentUrn, type, name));
}

/** A child's URN from its parent's: the parent's type chain (not the stack's) then the child's type. */
export function childUrn(parentUrn: string, type: string, name: string): string {
  const parts = parentUrn.split("::");
  const parentType = parts[2] ?? "";
  const prefix = parts.slice(0, 2).join("::");
  const qualified = parentType === "pulumi:pulumi:Stack" ? type : `${parentType}$${type}`;
  return `${prefix}::${qualified}::${name}`;
}

/**
 * The resource options of keyform dynamic resource `kind` named `name`.
 * @throws {Error} when `opts.import` is set: the engine cannot import dynamic resources (it
 *   would fail with "Cannot read properties of undefined"); the message points to `importId`
 *   and to the provider plugin, which supports `pulumi import`.
 */
export function dynamicResourceOptions(
  kind: string,
  name: string,
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions | undefined {
  if (opts?.import !== undefined) {
    throw new Error(
      `keyform.${kind} "${name}": the import resource option does not work with Pulumi dynamic resources. ` +
        `Use the importId argument instead (new keyform.${kind}("${name}", { ..., importId: <id> })), ` +
        `or the keyform provider plugin: pulumi import keyform:index:${kind} ${name} <id>`,
    );
  }
  return opts;
}
