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
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (BLOCKED_HOSTNAMES.has(host) || host.endsWith(".localhost") || host.endsWith(".internal")) {
    return { ok: false, reason: `url host ${host} is a local or metadata address` };
  }
  if (isPrivateAddress(host)) return { ok: false, reason: `url host ${host} is a loopback, private, link-local or metadata address` };
  return { ok: true, url };
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

function isPrivateIPv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    a! >= 224
  );
}

function isPrivateIPv6(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "::" || h === "::1") return true;
  // IPv4-mapped (::ffff:a.b.c.d, or the URL parser's hex form ::ffff:7f00:1).
  const mapped = /^::ffff:(.+)$/.exec(h);
  if (mapped) {
    const v4 = parseIPv4(mapped[1]!) ?? hexPairToIPv4(mapped[1]!);
    return v4 ? isPrivateIPv4(v4) : true;
  }
  // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::a.b.c.d) embed an IPv4 address.
  const embedded = /^(?:::|64:ff9b::)(.+)$/.exec(h);
  if (embedded) {
    const v4 = parseIPv4(embedded[1]!) ?? hexPairToIPv4(embedded[1]!);
    if (v4) return isPrivateIPv4(v4);
  }
  return /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith("ff");
}

function hexPairToIPv4(text: string): number[] | undefined {
  const m = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(text);
  if (!m) return undefined;
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255];
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
