/**
 * SSRF: every way of writing a private, loopback, link-local, CGNAT or metadata IPv4
 * address in a URL — dotted, short (127.1), decimal, hex, octal, mixed radix, percent-encoded,
 * full-width digits, trailing dots, IPv4-mapped / -compatible / NAT64 / 6to4 IPv6 — is
 * refused in a deployment; public addresses written the same ways are not. The policy
 * never throws, whatever the string.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkServerUrl } from "../../../src/core/url-policy.js";
import { anyString, RUNS } from "./arbitraries.js";

const strict = { allowPrivate: false };

/** [first octet range, second octet range] of each refused IPv4 block. */
const PRIVATE_BLOCKS: Array<[[number, number], [number, number]]> = [
  [[0, 0], [0, 255]], // "this network"
  [[10, 10], [0, 255]],
  [[127, 127], [0, 255]],
  [[100, 100], [64, 127]], // CGNAT
  [[169, 169], [254, 254]], // link-local, metadata
  [[172, 172], [16, 31]],
  [[192, 192], [168, 168]],
  [[198, 198], [18, 19]], // benchmarking
  [[224, 255], [0, 255]], // multicast, reserved, broadcast
];

const octet = fc.integer({ min: 0, max: 255 });
const privateV4 = fc
  .constantFrom(...PRIVATE_BLOCKS)
  .chain(([[a0, a1], [b0, b1]]) => fc.tuple(fc.integer({ min: a0, max: a1 }), fc.integer({ min: b0, max: b1 }), octet, octet));
const metadataV4 = fc.constant<[number, number, number, number]>([169, 254, 169, 254]);

/** Public unicast addresses (8.8.8.8-like): nothing in a refused block. */
const publicV4 = fc.tuple(fc.constantFrom(1, 8, 11, 23, 45, 64, 93, 104, 151, 185, 203), octet, octet, octet.filter((d) => d > 0));

const hex = (n: number) => `0x${n.toString(16)}`;
const oct = (n: number) => `0${n.toString(8)}`;
const h4 = (n: number) => n.toString(16);

/** Every textual form of one IPv4 address that a URL host may carry. */
function hostForms([a, b, c, d]: number[]): fc.Arbitrary<string> {
  const int = ((a! << 24) >>> 0) + (b! << 16) + (c! << 8) + d!;
  const radix = (n: number, r: number) => (r === 0 ? String(n) : r === 1 ? hex(n) : oct(n));
  const hi = (a! << 8) + b!;
  const lo = (c! << 8) + d!;
  return fc.oneof(
    fc.constant(`${a}.${b}.${c}.${d}`),
    fc.constant(String(int)),
    fc.constant(hex(int)),
    fc.constant(`0${int.toString(8)}`),
    fc.constant(`${a}.${(b! << 16) + (c! << 8) + d!}`), // 127.1 style
    fc.constant(`${a}.${b}.${(c! << 8) + d!}`),
    fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })).map(
      ([ra, rb, rc, rd]) => `${radix(a!, ra)}.${radix(b!, rb)}.${radix(c!, rc)}.${radix(d!, rd)}`,
    ),
    fc.constant(`${a}.${b}.${c}.${d}.`), // trailing dot
    fc.constant(`${a}%2E${b}%2e${c}.${d}`), // percent-encoded dots
    fc.constant(`${a}.${b}.${c}.${d}`.replace(/[0-9]/g, (x) => String.fromCharCode(0xff10 + Number(x)))), // full-width digits
    fc.constant(`[::ffff:${a}.${b}.${c}.${d}]`),
    fc.constant(`[::ffff:${h4(hi)}:${h4(lo)}]`),
    fc.constant(`[0:0:0:0:0:ffff:${a}.${b}.${c}.${d}]`),
    fc.constant(`[::FFFF:${h4(hi).toUpperCase()}:${h4(lo)}]`),
    fc.constant(`[::${a}.${b}.${c}.${d}]`), // IPv4-compatible (deprecated)
    fc.constant(`[64:ff9b::${a}.${b}.${c}.${d}]`), // NAT64
    fc.constant(`[64:ff9b:0:0:0:0:${h4(hi)}:${h4(lo)}]`),
    fc.constant(`[2002:${h4(hi)}:${h4(lo)}::1]`), // 6to4
    fc.constant(`[::ffff:0:${a}.${b}.${c}.${d}]`), // IPv4-translated
  );
}

const url = (host: string, tail: string) => `http://${host}${tail}`;
const tail = fc.constantFrom("/", "/mcp", ":8080/mcp", "/latest/meta-data/", "?x=1");

describe("URL policy (property)", () => {
  it("any encoding of a private, loopback, link-local, CGNAT or metadata IPv4 address is refused", () => {
    fc.assert(
      fc.property(fc.oneof(privateV4, metadataV4).chain((v4) => fc.tuple(fc.constant(v4), hostForms(v4), tail)), ([v4, host, path]) => {
        const raw = url(host, path);
        const check = checkServerUrl(raw, strict);
        // A form the URL parser itself rejects is refused all the same.
        expect(check.ok, `${raw} (${v4.join(".")}) must be refused`).toBe(false);
      }),
      { numRuns: RUNS.cheap * 3 },
    );
  });

  it("the same encodings of public addresses are allowed (the refusal is about the address, not the spelling)", () => {
    fc.assert(
      fc.property(publicV4.chain((v4) => fc.tuple(fc.constant(v4), hostForms(v4), tail)), ([v4, host, path]) => {
        const raw = url(host, path);
        if (!URL.canParse(raw)) return;
        // 6to4 and IPv4-compatible forms are refused outright (relays, deprecated); the rest are the public address.
        if (/^\[(2002:|::\d)/.test(host)) return;
        expect(checkServerUrl(raw, strict), `${raw} (${v4.join(".")})`).toMatchObject({ ok: true });
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("IPv6 loopback, unspecified, unique-local, link-local, site-local and multicast are refused in any spelling", () => {
    const v6 = fc.oneof(
      fc.constantFrom("::1", "0:0:0:0:0:0:0:1", "0000::0001", "::", "fd00:ec2::254", "fe80::1", "FE80::a:b", "febf::1", "fec0::1", "ff02::1", "100::1"),
      fc.tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), fc.integer({ min: 0, max: 0xffff })).map(([p, q]) => `${h4(p)}:${h4(q)}::1`),
      fc.tuple(fc.integer({ min: 0xfe80, max: 0xfeff }), fc.integer({ min: 0, max: 0xffff })).map(([p, q]) => `${h4(p)}:${h4(q)}::`),
    );
    fc.assert(
      fc.property(v6, tail, (host, path) => {
        expect(checkServerUrl(url(`[${host}]`, path), strict).ok, host).toBe(false);
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("local and metadata names in disguise are refused: trailing dots, case, subdomains of localhost", () => {
    const name = fc.oneof(
      fc.constantFrom("localhost", "metadata.google.internal", "metadata", "instance-data", "foo.internal"),
      fc.string({ minLength: 1, maxLength: 8 }).filter((s) => /^[a-z0-9-]+$/.test(s)).map((s) => `${s}.localhost`),
    );
    const disguise = fc.tuple(name, fc.constantFrom("", ".", "..", "..."), fc.boolean()).map(([n, dots, upper]) => (upper ? n.toUpperCase() : n) + dots);
    fc.assert(
      fc.property(disguise, tail, (host, path) => {
        expect(checkServerUrl(url(host, path), strict).ok, host).toBe(false);
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("never throws, whatever the string", () => {
    fc.assert(
      fc.property(fc.oneof(anyString, fc.webUrl(), anyString.map((s) => `http://${s}/`)), fc.boolean(), (raw, allowPrivate) => {
        const check = checkServerUrl(raw, { allowPrivate });
        expect(typeof check.ok).toBe("boolean");
      }),
      { numRuns: RUNS.cheap },
    );
  });
});
