// Preloaded (`node --require`) by keyform's Node.js language host into every Pulumi program it runs.
//
// Why: @pulumi/pulumi's runner reports an uncaught error with `util.inspect(err, { colors: true })`.
// Some Node.js releases (20.20.x among them; nodejs/node#64011, fixed by nodejs/node#64022) loop in
// the colouring of stack frames when a frame's path has a `node_modules/` segment with no path
// separator after the package name, e.g. `/app/node_modules/@pulumi/resource.ts:1598:22)`. The
// runner produces exactly such frames: source-map-support maps @pulumi/pulumi's own frames to the
// `../resource.ts` sources named in its source maps, one folder above the package. The loop grows
// a string until V8 refuses it (RangeError, caught by the runner, which then prints the error
// without colours), which costs 20-50 s of garbage collection before a failing program is reported.
//
// What: util.inspect is wrapped so that, only when colours are asked for and an error in the value
// (or its `cause` / `errors` chain) has such a frame, it formats without colours. Output is
// otherwise unchanged; the wrapper keeps every property of util.inspect (custom, defaultOptions,
// colors, styles), so `util.inspect.custom` and friends behave as before.
"use strict";

const util = require("node:util");
const { syncBuiltinESMExports } = require("node:module");

const original = util.inspect;

/** How many errors of a cause/errors chain are checked; deeper chains are not worth the time. */
const MAX_ERRORS_CHECKED = 50;

function isSeparator(ch) {
  return ch === "/" || ch === "\\";
}

/**
 * True when Node's stack-frame colouring would not find the end of a `node_modules` package name
 * in `line`: a `node_modules` path segment not followed by a separator after the package name
 * (or, for `@scope/name`, after the name).
 */
function hasUnterminatedPackagePath(line) {
  let from = 0;
  for (;;) {
    const at = line.indexOf("node_modules", from);
    if (at === -1) return false;
    const separator = line[at - 1];
    if (!isSeparator(separator) || !isSeparator(line[at + 12])) {
      from = at + 1;
      continue;
    }
    const start = at + 13;
    let end = line.indexOf(separator, start);
    if (end !== -1 && line[start] === "@") end = line.indexOf(separator, end + 1);
    if (end === -1) return true;
    from = end;
  }
}

function stackOf(value) {
  try {
    const stack = value.stack;
    return typeof stack === "string" ? stack : undefined;
  } catch {
    return undefined; // a throwing getter: util.inspect copes with it on its own
  }
}

/** True when colouring `value` could hit the Node.js loop described above. */
function needsPlainFormatting(value) {
  const pending = [value];
  const seen = new Set();
  while (pending.length > 0 && seen.size < MAX_ERRORS_CHECKED) {
    const current = pending.pop();
    if (current === null || (typeof current !== "object" && typeof current !== "function")) continue;
    if (seen.has(current)) continue;
    seen.add(current);
    const stack = stackOf(current);
    if (stack !== undefined && stack.split("\n").some(hasUnterminatedPackagePath)) return true;
    try {
      if ("cause" in current) pending.push(current.cause);
      if (Array.isArray(current.errors)) pending.push(...current.errors);
    } catch {
      // Proxies and throwing getters: nothing more to check.
    }
  }
  return false;
}

// Resolves `colors` the way util.inspect does: default options, then the legacy positional
// argument (value, showHidden, depth, colors), then an options object.
function inspect(value, ...rest) {
  const args = [value, ...rest];
  const options = typeof args[1] === "object" && args[1] !== null ? args[1] : undefined;
  let colors = original.defaultOptions.colors;
  if (args.length > 3 && args[3] !== undefined) colors = args[3];
  if (options !== undefined && Object.prototype.hasOwnProperty.call(options, "colors")) colors = options.colors;
  if (colors && needsPlainFormatting(value)) {
    if (options !== undefined) {
      args[1] = { ...options, colors: false };
    } else {
      while (args.length < 4) args.push(undefined);
      args[3] = false;
    }
  }
  return Reflect.apply(original, this, args);
}

for (const key of Reflect.ownKeys(original)) {
  if (key === "prototype") continue;
  Object.defineProperty(inspect, key, Object.getOwnPropertyDescriptor(original, key));
}

util.inspect = inspect;
// `import { inspect } from "node:util"` reads a snapshot of the exports; refresh it.
syncBuiltinESMExports();
