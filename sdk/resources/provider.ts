/**
 * @module resources/provider
 * The provider object Pulumi serializes into every keyform resource's state (`__provider`),
 * and the resource options every keyform dynamic resource passes.
 *
 * The provider is deliberately tiny and holds nothing but the resource class name: each method
 * loads keyform's provider runtime at call time and delegates to it. So the state carries no
 * secrets and no copy of keyform's code, and the code that runs is the keyform installed
 * where the Pulumi program runs (a user's `node_modules/keyform`, or this package itself).
 *
 * Size matters: the engine rewrites the whole state after every step, so every byte here is
 * written N times per resource in an `up` of N resources. The object is therefore a plain
 * object holding the class name and one function (under 1 KB serialized): no class, whose
 * constructor and prototype the serializer would copy too, and nothing from module scope.
 * Types are imported with `import type` only.
 */
import type * as pulumi from "@pulumi/pulumi";
import type * as dynamic from "@pulumi/pulumi/dynamic";



/**
 * A dynamic provider that delegates every call to keyform's provider runtime for the
 * resource class `kind`. `new KeyformProvider(kind)` (and the per-class subclasses) return the
 * plain provider object itself, so what is serialized has no class around it. Its CRUD
 * methods exist once `configure` has run (the dynamic-provider host always runs it first).
 */
export class KeyformProvider implements dynamic.ResourceProvider {
  /** The resource class this provider serves, e.g. `UserTag`. */
  declare readonly kind: string;
  declare configure: (req: dynamic.ConfigureRequest) => Promise<void>;
  declare check: (olds: any, news: any) => Promise<dynamic.CheckResult>;
  declare diff: (id: string, olds: any, news: any) => Promise<dynamic.DiffResult>;
  declare create: (inputs: any) => Promise<dynamic.CreateResult>;
  declare read: (id: string, props?: any) => Promise<dynamic.ReadResult>;
  declare update: (id: string, olds: any, news: any) => Promise<dynamic.UpdateResult>;
  declare delete: (id: string, props: any) => Promise<void>;

  constructor(kind: string) {
    // Only `configure` travels: the host calls it first, once per process, on every provider
    // it loads (before any other method). It loads keyform's runtime (from the project's
    // node_modules, else as seen from the working directory, which finds this package when the
    // program runs inside it), hands it the stack config, and makes the runtime handler of
    // `kind` this object's prototype, which is where check, diff, create, read, update and
    // delete then come from.
    // Written compactly on purpose: this function's source text is what is stored, twice per
    // resource (inputs and outputs), and the engine rewrites the whole state after every step.
    // prettier-ignore
    const self = { kind, configure: (q: dynamic.ConfigureRequest) => Promise.resolve("keyform/provider-runtime").then((m) => require(m)).catch(() => require("node:module").createRequire(`${process.cwd()}/`)("keyform/provider-runtime")).then((r) => { r.configure(q); Object.setPrototypeOf(self, r.handlerFor(kind)); }) };
    return self as KeyformProvider;
  }
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
