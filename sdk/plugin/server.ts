/**
 * @module plugin/server
 * The `ResourceProvider` gRPC service of `pulumi-resource-keyform`, served with the stubs
 * generated from Pulumi's protocol (shipped in `@pulumi/pulumi/proto`). `@pulumi/pulumi/provider`
 * has a Node server too, but it does not implement CheckConfig, DiffConfig or Configure and
 * sends no detailed diff (pulumi/pulumi#10915), which is most of what a native provider adds.
 *
 * Every resource call goes to the same runtime handler the TypeScript dynamic resources use
 * (`handlerFor(kind)`): this module only translates the wire.
 */
import * as grpc from "@grpc/grpc-js";
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import type { ProviderContext } from "../resources/runtime/context";
import { contextOfConfiguration, withContext } from "../resources/runtime/framework";
import { handlerFor } from "../resources/runtime";
import { retainedOnDelete } from "../resources/runtime/describe";
import { aboutResource, warnEngine } from "../resources/runtime/engine-log";
import { ObjectLeftBehindError } from "../resources/runtime/errors";
import { LINTED_PROPERTIES, lintWarnings } from "../resources/runtime/policy-expressions";
import { containsUnknown } from "../resources/runtime/values";
import { checkConfig, configLookupOf } from "./config";
import { functionOfToken, invokeFunction } from "./functions";
import { kindOfToken, packageSchema, secretOutputs } from "./schema";
import { decode, encode, type PropertyMap } from "./values";

type Unary<Req, Res> = grpc.handleUnaryCall<Req, Res>;

/** The resource type of a request: its `type` field, or the last type in its URN. */
function typeOf(req: { getType?(): string; getUrn(): string }): string {
  const explicit = req.getType?.();
  if (explicit) return explicit;
  // urn:pulumi:<stack>::<project>::<parent types$>type::<name>
  const parts = req.getUrn().split("::");
  const types = parts[2] ?? "";
  return types.slice(types.lastIndexOf("$") + 1);
}

/** The handler of a request's resource type, in the context of the provider's configuration. */
function handlerOf(req: { getType?(): string; getUrn(): string }, context: ProviderContext) {
  const type = typeOf(req);
  const kind = kindOfToken(type);
  if (kind === undefined) throw new Error(`keyform: the keyform provider has no resource type "${type}"`);
  return withContext(handlerFor(kind), context);
}

/** Outputs to return as secrets: those the schema marks secret, and any whose input was secret. */
function secretKeysOf(handler: ReturnType<typeof handlerFor>, inputSecrets: ReadonlySet<string>): string[] {
  return [...secretOutputs(handler.spec), ...inputSecrets];
}

/**
 * Wraps an async handler: a thrown error becomes a gRPC error whose message is the error's
 * message (the engine shows it as is). An {@link ObjectLeftBehindError} (the object exists although
 * the operation failed) becomes ErrorResourceInitFailed, so the engine keeps it in state.
 */
function unary<Req, Res>(run: (req: Req) => Promise<Res>): Unary<Req, Res> {
  return (call, callback) => {
    // A call about a resource: the warnings it sends the engine are attached to that resource.
    const urn = (call.request as { getUrn?(): string }).getUrn?.();
    aboutResource(urn, () => run(call.request)).then(
      (res) => callback(null, res),
      (error: unknown) => callback(toServiceError(error)),
    );
  };
}

export function toServiceError(error: unknown): Partial<grpc.ServiceError> {
  const message = error instanceof Error ? error.message : String(error);
  const metadata = new grpc.Metadata();
  if (error instanceof ObjectLeftBehindError) {
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId(error.id);
    detail.setProperties(encode(error.properties as PropertyMap));
    detail.setReasonsList([...error.reasons]);
    const packed = new anyproto.Any();
    packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    status.addDetails(packed);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return { code: grpc.status.UNKNOWN, details: message, message, metadata };
}

function checkResponse(inputs: ReturnType<typeof encode>, failures: Array<{ property: string; reason: string }>): provproto.CheckResponse {
  const resp = new provproto.CheckResponse();
  resp.setInputs(inputs);
  resp.setFailuresList(
    failures.map((f) => {
      const failure = new provproto.CheckFailure();
      failure.setProperty(f.property);
      failure.setReason(f.reason);
      return failure;
    }),
  );
  return resp;
}

/** How a changed property shows in the detailed diff. */
function propertyDiff(oldValue: unknown, newValue: unknown, replace: boolean): provproto.PropertyDiff {
  const Kind = provproto.PropertyDiff.Kind;
  const diff = new provproto.PropertyDiff();
  if (oldValue === undefined) diff.setKind(replace ? Kind.ADD_REPLACE : Kind.ADD);
  else if (newValue === undefined) diff.setKind(replace ? Kind.DELETE_REPLACE : Kind.DELETE);
  else diff.setKind(replace ? Kind.UPDATE_REPLACE : Kind.UPDATE);
  diff.setInputdiff(true);
  return diff;
}

/**
 * Sends the lint warnings of a resource's policy expressions to the engine, worded as the
 * TypeScript classes word them from the program (`resources/policy-warnings.ts`), once its
 * values are known.
 */
async function warnAboutExpressions(kind: string, urn: string, inputs: Record<string, unknown>): Promise<void> {
  const properties = LINTED_PROPERTIES[kind];
  if (properties === undefined) return;
  const declared = Object.fromEntries(properties.map((p) => [p, inputs[p]]));
  if (Object.values(declared).some((v) => v !== undefined && (typeof v !== "string" || containsUnknown(v)))) return;
  const name = urn.split("::").pop() ?? urn;
  for (const line of lintWarnings(`${kind} ${JSON.stringify(name)}`, declared)) await warnEngine(line);
}

/** The implementation of the ResourceProvider service; `version` is the package version. */
export function providerService(version: string): grpc.UntypedServiceImplementation {
  const schema = JSON.stringify(packageSchema(version));
  // Created by Configure: what this configuration of the provider remembers (`context.ts`).
  // Before it, calls run with the environment's settings.
  let context: ProviderContext = contextOfConfiguration({ config: { get: () => undefined } });

  const service = {
    getPluginInfo: unary<emptyproto.Empty, plugproto.PluginInfo>(async () => {
      const info = new plugproto.PluginInfo();
      info.setVersion(version);
      return info;
    }),

    getSchema: unary<provproto.GetSchemaRequest, provproto.GetSchemaResponse>(async (req) => {
      if (req.getVersion() !== 0) throw new Error(`keyform: unsupported schema version ${req.getVersion()}`);
      const resp = new provproto.GetSchemaResponse();
      resp.setSchema(schema);
      return resp;
    }),

    checkConfig: unary<provproto.CheckRequest, provproto.CheckResponse>(async (req) => {
      const news = decode(req.getNews());
      // The inputs go back exactly as they came, so a secret setting stays a secret in state.
      return checkResponse(req.getNews() ?? encode({}), checkConfig(news.values));
    }),

    diffConfig: unary<provproto.DiffRequest, provproto.DiffResponse>(async (req) => {
      const olds = decode(req.getOlds()).values;
      const news = decode(req.getNews()).values;
      const changed = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter(
        (key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]),
      );
      const resp = new provproto.DiffResponse();
      // New settings apply to the existing objects: never replace the provider (which would
      // replace every resource it manages). A resource whose organization changes is replaced
      // by its own diff.
      resp.setChanges(changed.length > 0 ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE);
      resp.setDiffsList(changed);
      return resp;
    }),

    configure: unary<provproto.ConfigureRequest, provproto.ConfigureResponse>(async (req) => {
      const args = decode(req.getArgs()).values;
      const variables = new Map(req.getVariablesMap().toArray() as Array<[string, string]>);
      const lookup = configLookupOf(args, variables);
      // CheckConfig refused unknown keys already; `check` proves the settings once per run.
      context = contextOfConfiguration({ config: { get: (key: string) => lookup(key) } }, { verify: true, configKeys: [...variables.keys()] });
      const resp = new provproto.ConfigureResponse();
      resp.setAcceptsecrets(true);
      // Create and update are not run during a preview; the engine shows outputs as unknown.
      resp.setSupportspreview(false);
      resp.setAcceptresources(false);
      resp.setAcceptoutputs(false);
      return resp;
    }),

    check: unary<provproto.CheckRequest, provproto.CheckResponse>(async (req) => {
      const handler = handlerOf(req, context);
      const olds = decode(req.getOlds());
      const news = decode(req.getNews());
      const result = await handler.check(olds.values, news.values, { urn: req.getUrn() });
      const failures = result.failures ?? [];
      if (failures.length === 0) await warnAboutExpressions(handler.spec.kind, req.getUrn(), news.values);
      return checkResponse(encode((result.inputs ?? news.values) as PropertyMap, news.secretKeys), failures);
    }),

    diff: unary<provproto.DiffRequest, provproto.DiffResponse>(async (req) => {
      const handler = handlerOf(req, context);
      const olds = decode(req.getOlds()).values;
      const news = decode(req.getNews()).values;
      const result = await handler.diff(req.getId(), olds, news);
      const resp = new provproto.DiffResponse();
      const Changes = provproto.DiffResponse.DiffChanges;
      resp.setChanges(result.changes === true ? Changes.DIFF_SOME : result.changes === false ? Changes.DIFF_NONE : Changes.DIFF_UNKNOWN);
      const replaces = result.replaces ?? [];
      resp.setReplacesList(replaces);
      resp.setDiffsList(result.diffs);
      resp.setDeletebeforereplace(result.deleteBeforeReplace ?? false);
      resp.setHasdetaileddiff(true);
      const detailed = resp.getDetaileddiffMap();
      for (const name of result.diffs) detailed.set(name, propertyDiff(olds[name], news[name], replaces.includes(name)));
      return resp;
    }),

    create: unary<provproto.CreateRequest, provproto.CreateResponse>(async (req) => {
      const handler = handlerOf(req, context);
      const inputs = decode(req.getProperties());
      const result = await handler.create(inputs.values, { urn: req.getUrn() });
      const resp = new provproto.CreateResponse();
      resp.setId(result.id);
      resp.setProperties(encode((result.outs ?? {}) as PropertyMap, secretKeysOf(handler, inputs.secretKeys)));
      return resp;
    }),

    read: unary<provproto.ReadRequest, provproto.ReadResponse>(async (req) => {
      const handler = handlerOf(req, context);
      const props = decode(req.getProperties());
      const inputs = decode(req.getInputs());
      const result = await handler.read(req.getId(), props.values);
      const resp = new provproto.ReadResponse();
      // An empty id says the object is gone: refresh drops it, import fails naming the id.
      if (!result.id) return resp;
      const secrets = secretKeysOf(handler, new Set([...props.secretKeys, ...inputs.secretKeys]));
      resp.setId(result.id);
      resp.setProperties(encode((result.props ?? {}) as PropertyMap, secrets));
      if (result.inputs !== undefined) resp.setInputs(encode(result.inputs as PropertyMap, inputs.secretKeys));
      return resp;
    }),

    update: unary<provproto.UpdateRequest, provproto.UpdateResponse>(async (req) => {
      const handler = handlerOf(req, context);
      const olds = decode(req.getOlds());
      const news = decode(req.getNews());
      const result = await handler.update(req.getId(), olds.values, news.values);
      const resp = new provproto.UpdateResponse();
      resp.setProperties(encode((result.outs ?? {}) as PropertyMap, secretKeysOf(handler, news.secretKeys)));
      return resp;
    }),

    delete: unary<provproto.DeleteRequest, emptyproto.Empty>(async (req) => {
      const handler = handlerOf(req, context);
      const props = decode(req.getProperties()).values;
      // The rule the TypeScript classes apply as `retainOnDelete`: key material stays in the
      // organization unless the program said otherwise, and leaves the state only.
      if (!retainedOnDelete(handler.spec.describe, props)) await handler.delete(req.getId(), props);
      return new emptyproto.Empty();
    }),

    invoke: unary<provproto.InvokeRequest, provproto.InvokeResponse>(async (req) => {
      const name = functionOfToken(req.getTok());
      if (name === undefined) throw new Error(`keyform: the keyform provider has no function "${req.getTok()}"`);
      const result = await invokeFunction(context, name, decode(req.getArgs()).values);
      const resp = new provproto.InvokeResponse();
      resp.setReturn(encode(result));
      return resp;
    }),

    cancel: unary<emptyproto.Empty, emptyproto.Empty>(async () => new emptyproto.Empty()),
    attach: unary<plugproto.PluginAttach, emptyproto.Empty>(async () => new emptyproto.Empty()),
    getMapping: unary<provproto.GetMappingRequest, provproto.GetMappingResponse>(async () => new provproto.GetMappingResponse()),
    getMappings: unary<provproto.GetMappingsRequest, provproto.GetMappingsResponse>(async () => new provproto.GetMappingsResponse()),
  };
  return service as unknown as grpc.UntypedServiceImplementation;
}

/** The generated service definition the implementation is registered under. */
export const ResourceProviderService = provrpc.ResourceProviderService;
