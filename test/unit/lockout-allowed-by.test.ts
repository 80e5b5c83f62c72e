/**
 * `allowedBy`: whether an IP allowlist's rules let an address in, differentially against a
 * brute-force oracle over IPv4 prefixes (every address of a small range compared bit by bit).
 */
import { describe, expect, it } from "vitest";
import { allowedBy } from "../../sdk/resources/runtime/lockout";

const toInt = (a: string) => a.split(".").reduce((n, part) => n * 256 + Number(part), 0);
const inBlock = (address: string, cidr: string) => {
  const [block, prefix] = cidr.split("/");
  const bits = prefix === undefined ? 32 : Number(prefix);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((toInt(address) & mask) >>> 0) === ((toInt(block!) & mask) >>> 0);
};

describe("allowedBy", () => {
  it("agrees with a bit-by-bit oracle for IPv4 blocks of every prefix length", () => {
    const rulesets = [[{ cidr: "10.1.2.0/24" }], [{ cidr: "10.1.2.128/25" }, { cidr: "10.1.0.0/30" }], [{ cidr: "10.1.2.3" }], [{ cidr: "0.0.0.0/0" }], []];
    for (let prefix = 16; prefix <= 32; prefix++) rulesets.push([{ cidr: `10.1.2.77/${prefix}` }]);
    for (const rules of rulesets) {
      for (let third = 0; third < 4; third++) {
        for (let last = 0; last < 256; last++) {
          const address = `10.1.${third}.${last}`;
          expect(allowedBy(rules, address), `${address} in ${JSON.stringify(rules)}`).toBe(rules.some((r) => inBlock(address, r.cidr)));
        }
      }
    }
  });

  it("reads an IPv4-mapped IPv6 address as IPv4, and IPv6 blocks", () => {
    expect(allowedBy([{ cidr: "127.0.0.0/8" }], "::ffff:127.0.0.1")).toBe(true);
    expect(allowedBy([{ cidr: "2001:db8::/32" }], "2001:db8::1")).toBe(true);
    expect(allowedBy([{ cidr: "2001:db8::/32" }], "2001:db9::1")).toBe(false);
    expect(allowedBy([{ cidr: "not-an-address" }], "10.0.0.1")).toBe(false);
  });
});
