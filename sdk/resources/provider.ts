/**
 * @module resources/provider
 * The provider object Pulumi serializes into every keyform resource's state (`__provider`).
 *
 * It is deliberately tiny and holds nothing but the resource class name: each method loads
 * keyform's provider runtime at call time and delegates to it. So the state carries no
 * secrets and no copy of keyform's code, and the code that runs is the keyform installed
 * where the Pulumi program runs (a user's `node_modules/keyform`, or this package itself).
 *
 * Nothing in this file may reference a module-level value: the serializer would copy it into
 * state. Types are imported with `import type` only.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";

/** What `keyform/provider-runtime` exports to serialized providers. */
interface ProviderRuntime {
  configure(req: { config: { get(key: string): string | undefined } }): void;
  handlerFor(kind: string): {
    check(olds: unknown, news: unknown): Promise<dynamic.CheckResult>;
    diff(id: string, olds: unknown, news: unknown): Promise<dynamic.DiffResult>;
    create(inputs: unknown): Promise<dynamic.CreateResult>;
    read(id: string, props: unknown): Promise<dynamic.ReadResult>;
    update(id: string, olds: unknown, news: unknown): Promise<dynamic.UpdateResult>;
    delete(id: string, props: unknown): Promise<void>;
  };
}

/**
 * A dynamic provider that delegates every call to keyform's provider runtime for the
 * resource class `kind`.
 */
export class KeyformProvider implements dynamic.ResourceProvider {
  /** The resource class this provider serves, e.g. `UserTag`. */
  readonly kind: string;

  constructor(kind: string) {
    this.kind = kind;
  }

  /**
   * Loads `keyform/provider-runtime`: from the module paths of the serialized code first
   * (the project's node_modules), then as seen from the working directory, which also
   * resolves the keyform package itself when the program runs inside it.
   */
  runtime(): ProviderRuntime {
    const id = "keyform/provider-runtime";
    try {
      return require(id);
    } catch (error) {
      if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") throw error;
      const { createRequire } = require("node:module");
      const { join } = require("node:path");
      try {
        return createRequire(join(process.cwd(), "index.js"))(id);
      } catch (inner) {
        if ((inner as { code?: string }).code !== "MODULE_NOT_FOUND") throw inner;
        throw new Error(`keyform: cannot load ${id} from ${process.cwd()}: install the keyform package in the project that runs pulumi`);
      }
    }
  }

  async configure(req: dynamic.ConfigureRequest): Promise<void> {
    this.runtime().configure(req);
  }

  async check(olds: any, news: any): Promise<dynamic.CheckResult> {
    return this.runtime().handlerFor(this.kind).check(olds, news);
  }

  async diff(id: string, olds: any, news: any): Promise<dynamic.DiffResult> {
    return this.runtime().handlerFor(this.kind).diff(id, olds, news);
  }

  async create(inputs: any): Promise<dynamic.CreateResult> {
    return this.runtime().handlerFor(this.kind).create(inputs);
  }

  async read(id: string, props?: any): Promise<dynamic.ReadResult> {
    return this.runtime().handlerFor(this.kind).read(id, props ?? {});
  }

  async update(id: string, olds: any, news: any): Promise<dynamic.UpdateResult> {
    return this.runtime().handlerFor(this.kind).update(id, olds, news);
  }

  async delete(id: string, props: any): Promise<void> {
    return this.runtime().handlerFor(this.kind).delete(id, props);
  }
}
