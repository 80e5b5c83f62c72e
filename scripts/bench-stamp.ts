/**
 * Stamp and verify timings per API key curve.
 *
 *   npm run bench:stamp              2000 measured iterations per operation
 *   node dist/scripts/bench-stamp.js 5000
 *
 * For each curve it signs a typical ~300-byte activity body with {@link ApiKeyStamper} and
 * verifies the header with {@link verifyStamp} (the emulator's per-request check, warm key
 * cache), timing every call, and prints the median and 90th percentile in microseconds. The
 * last column is the pure-JS (noble) verifier alone, the fallback where OpenSSL lacks a curve.
 */
import { performance } from "node:perf_hooks";
import { ApiKeyStamper } from "../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../sdk/protocol/keys";
import { nobleVerifier, parsePublicKey, verifyStamp } from "../sdk/protocol/verify-stamp";
import type { ApiKeyCurve } from "../sdk/wire/enums";

const CURVES: ApiKeyCurve[] = ["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519"];
const WARM_UP = 200;

/** A create_policy activity body of about 300 bytes, as the client serializes it. */
function activityBody(i: number): string {
  return JSON.stringify({
    type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
    timestampMs: String(1_718_000_000_000 + i),
    organizationId: "4b8c3f2e-1f0e-4a53-9a59-0f4f7c6f2d11",
    parameters: {
      policyName: "ops may sign with treasury",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'WALLET' && activity.action == 'SIGN'",
      consensus: "approvers.count() >= 2",
      notes: "",
    },
  });
}

/** Times `run` per call; returns [median, p90] in microseconds. */
function measure(iterations: number, run: (i: number) => void): [number, number] {
  for (let i = 0; i < WARM_UP; i++) run(i);
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    run(i);
    samples[i] = (performance.now() - start) * 1000;
  }
  samples.sort();
  const at = (q: number): number => samples[Math.min(iterations - 1, Math.floor(q * iterations))] ?? NaN;
  return [at(0.5), at(0.9)];
}

function main(): void {
  const iterations = Number(process.argv[2] ?? 2000);
  if (!Number.isInteger(iterations) || iterations < 10) {
    throw new Error(`iterations must be an integer >= 10, got ${process.argv[2]}`);
  }
  const bodies = Array.from({ length: 64 }, (_, i) => activityBody(i));
  const bodyBytes = bodies.map((b) => new TextEncoder().encode(b));
  console.log(`body ${bodyBytes[0]!.length} bytes, ${iterations} iterations after ${WARM_UP} warm-up, microseconds per call`);
  console.log(`node ${process.version}, ${process.platform}/${process.arch}\n`);

  const rows: string[][] = [["curve", "stamp p50", "stamp p90", "verify p50", "verify p90", "noble verify p50"]];
  for (const curve of CURVES) {
    const pair = generateApiKeyPair(curve);
    const stamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, curve });
    const headers = bodies.map((b) => stamper.stamp(b).value);

    const [stampMedian, stampP90] = measure(iterations, (i) => stamper.stamp(bodies[i % bodies.length]!));
    const [verifyMedian, verifyP90] = measure(iterations, (i) => verifyStamp(headers[i % headers.length]!, bodies[i % bodies.length]!));

    const noble = nobleVerifier(curve, parsePublicKey(curve, pair.publicKey));
    const signatures = headers.map((h) => {
      const { signature } = JSON.parse(Buffer.from(h, "base64url").toString("utf8")) as { signature: string };
      return Buffer.from(signature, "hex");
    });
    // The pure-JS path is slow on P-256: a quarter of the iterations is enough for a median.
    const [nobleMedian] = measure(Math.max(10, Math.floor(iterations / 4)), (i) => {
      if (!noble(signatures[i % signatures.length]!, bodyBytes[i % bodyBytes.length]!)) throw new Error("noble verify failed");
    });

    rows.push([curve, stampMedian, stampP90, verifyMedian, verifyP90, nobleMedian].map((v) =>
      typeof v === "number" ? v.toFixed(0) : v,
    ));
  }

  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
  }
}

main();
