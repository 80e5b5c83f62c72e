/**
 * @module plugin/values
 * Property values on the provider wire: protobuf `Struct`s whose secrets are wrapped in
 * signature objects (the plugin tells the engine it accepts secrets, so a secret input stays
 * a secret and a secret output can be returned as one) and whose unknown values, during a
 * preview, are the engine's unknown sentinel. The resource handlers work on plain values, so
 * secrets are unwrapped on the way in and put back on the way out.
 */
import * as structproto from "google-protobuf/google/protobuf/struct_pb";

/** The key that marks a special value object, and its value for a secret. */
const SIGNATURE_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIGNATURE = "1b47061264138c4ac30d75fd1eb44270";

/** A plain property map, as the handlers take and return it. */
export type PropertyMap = Record<string, unknown>;

/** True for the engine's wrapped-secret object (on the wire, and in exported state, where it holds a ciphertext). */
export function isSecret(value: unknown): value is { value: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[SIGNATURE_KEY] === SECRET_SIGNATURE
  );
}

/** `value` with every secret wrapper replaced by the value it holds. */
export function unwrapSecrets(value: unknown): unknown {
  if (isSecret(value)) return unwrapSecrets(value.value);
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v)]));
  }
  return value;
}

/** True when `value` is or holds a secret anywhere inside it. */
function holdsSecret(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(holdsSecret);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsSecret);
  return false;
}

/** The wrapped form of a secret value. */
export function secret(value: unknown): unknown {
  return { [SIGNATURE_KEY]: SECRET_SIGNATURE, value };
}

/** A decoded property map: the plain values, and which top-level properties were secret. */
export interface Decoded {
  readonly values: PropertyMap;
  readonly secretKeys: ReadonlySet<string>;
}

/** Decodes a request's property `Struct` (absent counts as empty). */
export function decode(struct: structproto.Struct | undefined): Decoded {
  const raw = (struct?.toJavaScript() ?? {}) as PropertyMap;
  const secretKeys = new Set(Object.keys(raw).filter((key) => holdsSecret(raw[key])));
  return { values: unwrapSecrets(raw) as PropertyMap, secretKeys };
}

/**
 * Encodes a property map for a response: `undefined` values are dropped (a `Struct` has no
 * such value) and the named top-level properties are wrapped as secrets.
 */
export function encode(values: PropertyMap, secretKeys: Iterable<string> = []): structproto.Struct {
  const secrets = new Set(secretKeys);
  const out: PropertyMap = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const plain = withoutUndefined(value);
    out[key] = secrets.has(key) ? secret(plain) : plain;
  }
  return structproto.Struct.fromJavaScript(out as Record<string, structproto.JavaScriptValue>);
}

function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : withoutUndefined(v)));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, withoutUndefined(v)]),
    );
  }
  return value;
}
