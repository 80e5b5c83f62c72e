/**
 * @module test/support/earlier-provider-code
 * Provider code as earlier keyform versions stored it in state.
 */

/**
 * The `__provider` code keyform wrote into state before it wrote its own (Pulumi's closure
 * serialization of a provider object): refresh and destroy of those resources run it, so it
 * must keep loading the runtime.
 */
export const EARLIER_PROVIDER_CODE = (kind: string) =>
  `exports.handler = __f0;\n\nvar __provider = {kind: "${kind}", configure: __f1};\n\nfunction __f1(__0) {\n  return (function() {\n    with({ self: __provider, kind: "${kind}", this: undefined, arguments: undefined }) {\n\n` +
  'return (q) => Promise.resolve("keyform/provider-runtime").then((m) => require(m)).catch(() => require("node:module").createRequire(`${process.cwd()}/`)("keyform/provider-runtime")).then((r) => { r.configure(q); Object.setPrototypeOf(self, r.handlerFor(kind)); });' +
  "\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n\nfunction __f0() {\n  return (function() {\n    with({ provider: __provider, this: undefined, arguments: undefined }) {\n\nreturn () => provider;\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n";
