/**
 * Which remote URLs a session may dial. Only http(s). A deployment refuses loopback,
 * private, link-local, CGNAT and cloud-metadata addresses (SSRF) unless its config
 * allows private URLs; local dev and tests allow them. Hostnames are checked by
 * name and literal address only: a Worker cannot resolve DNS itself, and Cloudflare's
 * egress does not reach private networks of its own.
 */

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const BLOCKED_HOSTNAMES = new Set(["localhost", "metadata.google.internal", "metadata", "instance-data"]);

export function checkServerUrl(raw: string, options: { allowPrivate: boolean }): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "url is not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `url scheme ${url.protocol.replace(":", "")} is not allowed (only http and https)` };
  }
  if (url.username || url.password) return { ok: false, reason: "url must not carry credentials; use headers" };
  if (options.allowPrivate) return { ok: true, url };
  const host = canonicalHost(url.hostname);
  if (BLOCKED_HOSTNAMES.has(host) || host.endsWith(".localhost") || host.endsWith(".internal")) {
    return { ok: false, reason: `url host ${host} is a local or metadata address` };
  }
  if (isPrivateAddress(host)) return { ok: false, reason: `url host ${host} is a loopback, private, link-local or metadata address` };
  return { ok: true, url };
}

/**
 * The host as a resolver would read it: lowercase, no brackets, no trailing dots (the URL
 * parser keeps all but one: `127.0.0.1..` stays a "domain"), and a host that is an IPv4
 * address once its dots are gone re-read by the URL parser (`0x7f.1.` → 127.0.0.1).
 */
function canonicalHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  const trimmed = host.replace(/\.+$/, "");
  if (trimmed === host || trimmed === "") return trimmed || host;
  try {
    return new URL(`http://${trimmed}/`).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return trimmed;
  }
}

export function isPrivateAddress(host: string): boolean {
  const v4 = parseIPv4(host);
  if (v4) return isPrivateIPv4(v4);
  if (host.includes(":")) return isPrivateIPv6(host);
  return false;
}

function parseIPv4(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

function isPrivateIPv4([a, b, c]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && c === 0) || // IETF protocol assignments (192.0.0.170: NAT64 discovery)
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a! >= 224
  );
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed), or undefined. */
function parseIPv6(host: string): number[] | undefined {
  let text = host.toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[2]!);
    if (!v4) return undefined;
    text = `${dotted[1]}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

function v4From(hi: number, lo: number): number[] {
  return [hi >> 8, hi & 255, lo >> 8, lo & 255];
}

/**
 * Loopback, unspecified, unique-local (fc00::/7), link- and site-local (fe80::/9),
 * multicast, discard-only (100::/64), and every form that embeds an IPv4 address
 * (mapped, translated, compatible, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo) when
 * that address is private; local-use NAT64 (64:ff9b:1::/48) always. Unparseable: refused.
 */
function isPrivateIPv6(host: string): boolean {
  const g = parseIPv6(host);
  if (!g) return true;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return true; // ::
  if (zeroTo(7) && g7 === 1) return true; // ::1
  if (zeroTo(5) && g5 === 0xffff) return isPrivateIPv4(v4From(g6, g7)); // ::ffff:a.b.c.d
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return isPrivateIPv4(v4From(g6, g7)); // ::ffff:0:a.b.c.d
  if (zeroTo(6)) return isPrivateIPv4(v4From(g6, g7)); // ::a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPrivateIPv4(v4From(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true;
  if (g0 === 0x2002) return isPrivateIPv4(v4From(g1, g2));
  if (g0 === 0x2001 && g1 === 0) return isPrivateIPv4(v4From(g2, g3)) || isPrivateIPv4(v4From(g6 ^ 0xffff, g7 ^ 0xffff));
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true;
  return (g0 & 0xfe00) === 0xfc00 || (g0 & 0xff80) === 0xfe80 || (g0 & 0xff00) === 0xff00;
}

/** A server URL as it may appear in logs and errors: no query, fragment or credentials. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(invalid url)";
  }
}
