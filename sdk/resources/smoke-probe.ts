/**
 * @module resources/smoke-probe
 * A tiny dynamic resource that proves the engine plumbing end to end: the CLI, the language
 * host, the dynamic-provider launcher and closure serialization of compiled keyform code. Its
 * live state is a file whose path is an input, so a test can change it behind the engine's back
 * and watch `refresh` notice. Deliberately not exported from the package index: it is test
 * infrastructure, not part of the public contract.
 */
import * as pulumi from "@pulumi/pulumi";

/** Type token module: the resource's token is `pulumi-nodejs:dynamic/keyform:SmokeProbe`. */
const TYPE_MODULE = "keyform";
const TYPE_NAME = "SmokeProbe";

/** Inputs of {@link SmokeProbe}. */
export interface SmokeProbeArgs {
  /** Absolute path of the file that holds the probe's live state. Changing it replaces the probe. */
  readonly filePath: pulumi.Input<string>;
  /** Text the file should contain; changing it updates the file in place. */
  readonly content: pulumi.Input<string>;
}

/** Inputs and outputs are the same plain values once resolved. */
interface SmokeProbeState {
  readonly filePath: string;
  readonly content: string;
}

function isNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "ENOENT";
}

/**
 * CRUD over one file. Every method loads `node:fs` itself instead of capturing a module from this
 * file's scope: the provider is closure-serialized into state and must be self-contained.
 */
class SmokeProbeProvider implements pulumi.dynamic.ResourceProvider<SmokeProbeState, SmokeProbeState> {
  async check(_olds: SmokeProbeState, news: SmokeProbeState): Promise<pulumi.dynamic.CheckResult<SmokeProbeState>> {
    const path = await import("node:path");
    const failures: pulumi.dynamic.CheckFailure[] = [];
    if (typeof news.filePath !== "string" || !path.isAbsolute(news.filePath)) {
      failures.push({ property: "filePath", reason: "filePath must be an absolute path" });
    }
    if (typeof news.content !== "string") {
      failures.push({ property: "content", reason: "content must be a string" });
    }
    return { inputs: news, failures };
  }

  async create(inputs: SmokeProbeState): Promise<pulumi.dynamic.CreateResult<SmokeProbeState>> {
    const fs = await import("node:fs/promises");
    // "wx": never adopt or overwrite a file this probe did not create.
    try {
      await fs.writeFile(inputs.filePath, inputs.content, { flag: "wx" });
    } catch (err) {
      if ((err as { code?: unknown }).code === "EEXIST") {
        throw new Error(`SmokeProbe: filePath ${inputs.filePath} already exists`);
      }
      throw err;
    }
    return { id: inputs.filePath, outs: { filePath: inputs.filePath, content: inputs.content } };
  }

  async diff(_id: string, olds: SmokeProbeState, news: SmokeProbeState): Promise<pulumi.dynamic.DiffResult> {
    const replaces = olds.filePath === news.filePath ? [] : ["filePath"];
    const changes = replaces.length > 0 || olds.content !== news.content;
    return { changes, replaces, deleteBeforeReplace: false };
  }

  async update(_id: string, _olds: SmokeProbeState, news: SmokeProbeState): Promise<pulumi.dynamic.UpdateResult<SmokeProbeState>> {
    const fs = await import("node:fs/promises");
    await fs.writeFile(news.filePath, news.content);
    return { outs: { filePath: news.filePath, content: news.content } };
  }

  async read(id: string, props?: SmokeProbeState): Promise<pulumi.dynamic.ReadResult<SmokeProbeState>> {
    const fs = await import("node:fs/promises");
    const filePath = props?.filePath ?? id;
    let content: string;
    try {
      content = await fs.readFile(filePath, "utf8");
    } catch (err) {
      // An empty result tells the engine the resource is gone, so refresh drops it from state.
      if (isNotFound(err)) return {};
      throw err;
    }
    const state = { filePath, content };
    // Returning inputs too makes later diffs compare against what refresh found.
    return { id, props: state, inputs: state };
  }

  async delete(_id: string, props: SmokeProbeState): Promise<void> {
    const fs = await import("node:fs/promises");
    try {
      await fs.unlink(props.filePath);
    } catch (err) {
      // Already gone is what delete wants.
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * A file on the local disk managed as a Pulumi resource (`pulumi-nodejs:dynamic/keyform:SmokeProbe`).
 * Used by the engine smoke tests; not part of keyform's public API.
 */
export class SmokeProbe extends pulumi.dynamic.Resource {
  /** Absolute path of the managed file; also the resource's ID. */
  declare public readonly filePath: pulumi.Output<string>;
  /** The file's content as last written or read by refresh. */
  declare public readonly content: pulumi.Output<string>;

  /**
   * @param name Logical name of the resource.
   * @param args File path and desired content.
   * @param opts Standard resource options.
   */
  constructor(name: string, args: SmokeProbeArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      new SmokeProbeProvider(),
      name,
      { filePath: args.filePath, content: args.content },
      opts,
      TYPE_MODULE,
      TYPE_NAME,
    );
  }
}
