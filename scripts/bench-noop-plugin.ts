/**
 * @module scripts/bench-noop-plugin
 * The floor of the plugin benchmark: a resource provider plugin (`pulumi-resource-kfnoop`) on
 * the same Node gRPC stack as keyform's (grpc-js, Pulumi's generated stubs, the same value
 * encoding) whose resources do nothing: check returns the inputs, diff finds nothing, create
 * echoes the inputs as outputs. What the engine plus a Node plugin cost per resource; keyform's
 * plugin is measured against it.
 *
 * With `KFNOOP_OUTPUTS` naming a JSON file of {@link Recorded} by resource name, create returns
 * the recorded id and outputs instead of the inputs: the state keyform's plugin wrote for the
 * same resources, at the engine's cost alone (the NYout floor of `bench-plugin`).
 */
import * as fs from "node:fs";
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { decode, encode, type PropertyMap } from "../sdk/plugin/values";
import type { Recorded } from "./bench-replay";

type Handler<Req, Res> = (req: Req) => Res;

function unary<Req, Res>(run: Handler<Req, Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => callback(null, run(call.request));
}

let next = 0;

const recorded: Record<string, Recorded> = process.env.KFNOOP_OUTPUTS ? JSON.parse(fs.readFileSync(process.env.KFNOOP_OUTPUTS, "utf8")) : {};

/** The resource name: the last part of the URN. */
const nameOf = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);

const service = {
  getPluginInfo: unary<emptyproto.Empty, plugproto.PluginInfo>(() => {
    const info = new plugproto.PluginInfo();
    info.setVersion("0.0.1");
    return info;
  }),
  getSchema: unary<provproto.GetSchemaRequest, provproto.GetSchemaResponse>(() => {
    const resp = new provproto.GetSchemaResponse();
    resp.setSchema(JSON.stringify({ name: "kfnoop", version: "0.0.1", resources: {} }));
    return resp;
  }),
  checkConfig: unary<provproto.CheckRequest, provproto.CheckResponse>((req) => {
    const resp = new provproto.CheckResponse();
    resp.setInputs(req.getNews());
    return resp;
  }),
  diffConfig: unary<provproto.DiffRequest, provproto.DiffResponse>(() => new provproto.DiffResponse()),
  configure: unary<provproto.ConfigureRequest, provproto.ConfigureResponse>(() => {
    const resp = new provproto.ConfigureResponse();
    resp.setAcceptsecrets(true);
    return resp;
  }),
  check: unary<provproto.CheckRequest, provproto.CheckResponse>((req) => {
    const resp = new provproto.CheckResponse();
    // Decoded and encoded again, as keyform's plugin does with every value.
    const news = decode(req.getNews());
    resp.setInputs(encode(news.values as PropertyMap, news.secretKeys));
    return resp;
  }),
  diff: unary<provproto.DiffRequest, provproto.DiffResponse>(() => {
    const resp = new provproto.DiffResponse();
    resp.setChanges(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    return resp;
  }),
  create: unary<provproto.CreateRequest, provproto.CreateResponse>((req) => {
    const inputs = decode(req.getProperties());
    const resp = new provproto.CreateResponse();
    const replay = recorded[nameOf(req.getUrn())];
    resp.setId(replay?.id ?? `noop-${process.pid}-${next++}`);
    resp.setProperties(replay ? encode(replay.outputs, replay.secretKeys) : encode(inputs.values as PropertyMap, inputs.secretKeys));
    return resp;
  }),
  read: unary<provproto.ReadRequest, provproto.ReadResponse>((req) => {
    const resp = new provproto.ReadResponse();
    resp.setId(req.getId());
    resp.setProperties(req.getProperties());
    resp.setInputs(req.getInputs());
    return resp;
  }),
  update: unary<provproto.UpdateRequest, provproto.UpdateResponse>((req) => {
    const resp = new provproto.UpdateResponse();
    resp.setProperties(req.getNews());
    return resp;
  }),
  delete: unary<provproto.DeleteRequest, emptyproto.Empty>(() => new emptyproto.Empty()),
  cancel: unary<emptyproto.Empty, emptyproto.Empty>(() => new emptyproto.Empty()),
  attach: unary<plugproto.PluginAttach, emptyproto.Empty>(() => new emptyproto.Empty()),
  getMapping: unary<provproto.GetMappingRequest, provproto.GetMappingResponse>(() => new provproto.GetMappingResponse()),
  getMappings: unary<provproto.GetMappingsRequest, provproto.GetMappingsResponse>(() => new provproto.GetMappingsResponse()),
};

const server = new grpc.Server();
server.addService(provrpc.ResourceProviderService, service as unknown as grpc.UntypedServiceImplementation);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) {
    process.stderr.write(`pulumi-resource-kfnoop: ${error.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${port}\n`);
});
