import { describe, expect, it } from "vitest";
import { checkServerUrl, isPrivateAddress, redactUrl } from "../../src/core/url-policy.js";

const strict = { allowPrivate: false };
const dev = { allowPrivate: true };

function reason(raw: string, options = strict): string {
  const check = checkServerUrl(raw, options);
  expect(check.ok, `${raw} should be refused`).toBe(false);
  return check.ok ? "" : check.reason;
}

describe("checkServerUrl: scheme and shape", () => {
  it("allows http and https", () => {
    const check = checkServerUrl("https://mcp.example.com/mcp?x=1", strict);
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.url.href).toBe("https://mcp.example.com/mcp?x=1");
    expect(checkServerUrl("http://example.com/", strict).ok).toBe(true);
  });

  it("refuses other schemes, in both modes", () => {
    for (const raw of ["ftp://example.com/", "file:///etc/passwd", "ws://example.com/", "javascript:alert(1)", "data:text/plain,hi", "gopher://x/"]) {
      expect(reason(raw)).toMatch(/only http and https/);
      expect(reason(raw, dev)).toMatch(/only http and https/);
    }
  });

  it("refuses strings that are not absolute URLs", () => {
    for (const raw of ["", "example.com", "/mcp", "http://", "http://exa mple.com/"]) {
      expect(reason(raw)).toMatch(/not a valid absolute URL/);
    }
  });

  it("refuses credentials in the URL, even when private URLs are allowed", () => {
    for (const raw of ["https://user:pass@example.com/", "https://user@example.com/", "https://:secret@example.com/", "https://example.com@127.0.0.1/"]) {
      expect(reason(raw)).toMatch(/credentials/);
      expect(reason(raw, dev)).toMatch(/credentials/);
    }
  });
});

describe("checkServerUrl: SSRF with allowPrivate false", () => {
  const refused = [
    // loopback
    "http://127.0.0.1/",
    "http://127.1.2.3:8080/mcp",
    "http://127.1/",
    "http://localhost/",
    "http://LOCALHOST:3000/",
    "http://localhost./",
    "http://app.localhost/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::ffff:127.0.0.1]/",
    // decimal, hex and octal IPv4 (the URL parser normalizes them)
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://127.0.0.1./",
    // unspecified
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
    // private
    "http://10.0.0.1/",
    "http://10.255.255.255/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::ffff:192.168.0.1]/",
    // CGNAT
    "http://100.64.0.1/",
    "http://100.127.255.255/",
    // link-local and cloud metadata
    "http://169.254.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://METADATA.GOOGLE.INTERNAL./",
    "http://metadata/",
    "http://instance-data/",
    "http://anything.internal/",
    // IPv6 unique-local, link-local, multicast
    "http://[fc00::1]/",
    "http://[fd12:3456:789a::1]/",
    "http://[fe80::1]/",
    "http://[febf::1]/",
    "http://[ff02::1]/",
    // IPv4 multicast / reserved
    "http://224.0.0.1/",
    "http://255.255.255.255/",
  ];

  for (const raw of refused) {
    it(`refuses ${raw}`, () => {
      expect(reason(raw)).toMatch(/local|private|loopback|metadata/);
    });
  }

  it("regression: IPv4-compatible and NAT64 IPv6 forms of private addresses are refused", () => {
    expect(reason("http://[::127.0.0.1]/")).toContain("loopback");
    expect(reason("http://[64:ff9b::10.0.0.1]/")).toContain("loopback");
    expect(reason("http://[64:ff9b::169.254.169.254]/")).toContain("loopback");
    expect(checkServerUrl("http://[64:ff9b::8.8.8.8]/", strict).ok).toBe(true);
  });

  it("regression: 6to4 (2002::/16) and Teredo addresses embedding a private IPv4 were allowed", () => {
    expect(reason("http://[2002:a9fe:a9fe::1]/")).toContain("loopback"); // 169.254.169.254
    expect(reason("http://[2002:7f00:1::]/")).toContain("loopback");
    expect(reason("http://[2001:0:a00:1::ffff:ffff]/")).toContain("loopback"); // Teredo server 10.0.0.1
    expect(checkServerUrl("http://[2002:808:808::1]/", strict).ok).toBe(true);
  });

  it("regression: site-local fec0::/10, local-use NAT64 and discard-only IPv6 were allowed", () => {
    for (const raw of ["http://[fec0::1]/", "http://[feff::1]/", "http://[64:ff9b:1::a00:1]/", "http://[100::1]/", "http://[fd00:ec2::254]/"]) {
      expect(reason(raw)).toContain("loopback");
    }
  });

  it("regression: more than one trailing dot hid a local name or address", () => {
    for (const raw of ["http://localhost../", "http://app.localhost.../", "http://127.0.0.1../", "http://0x7f.1../", "http://metadata.google.internal../"]) {
      expect(reason(raw)).toMatch(/local|loopback|metadata/);
    }
  });

  it("regression: 192.0.0.0/24 (NAT64 discovery 192.0.0.170) and 198.18.0.0/15 (benchmarking) are refused", () => {
    expect(reason("http://192.0.0.170/")).toContain("loopback");
    expect(reason("http://198.19.1.1/")).toContain("loopback");
    expect(checkServerUrl("http://192.0.1.1/", strict).ok).toBe(true);
  });

  it("the IPv4-mapped loopback is seen in the URL parser's hex form", () => {
    expect(new URL("http://[::ffff:127.0.0.1]/").hostname).toBe("[::ffff:7f00:1]");
    expect(reason("http://[::ffff:127.0.0.1]/")).toContain("::ffff:7f00:1");
  });

  const allowed = [
    "https://example.com/mcp",
    "http://8.8.8.8/",
    "https://1.1.1.1:443/",
    "http://172.15.255.255/",
    "http://172.32.0.1/",
    "http://100.63.255.255/",
    "http://100.128.0.1/",
    "http://169.253.1.1/",
    "http://192.169.0.1/",
    "http://11.0.0.1/",
    "http://[2001:4860:4860::8888]/",
    "http://[::ffff:8.8.8.8]/",
    "https://localhost.example.com/",
    "https://internal.example.com/",
    "https://fc00.example.com/",
    "https://10.0.0.1.nip.example/",
  ];

  for (const raw of allowed) {
    it(`allows public ${raw}`, () => {
      expect(checkServerUrl(raw, strict)).toMatchObject({ ok: true });
    });
  }
});

describe("checkServerUrl: allowPrivate true", () => {
  it("allows loopback, private and localhost", () => {
    for (const raw of ["http://127.0.0.1:8787/mcp", "http://localhost:3000/", "http://[::1]/", "http://10.0.0.1/", "http://192.168.0.10/"]) {
      expect(checkServerUrl(raw, dev).ok, raw).toBe(true);
    }
  });
});

describe("isPrivateAddress", () => {
  it("classifies literal addresses", () => {
    expect(isPrivateAddress("127.0.0.1")).toBe(true);
    expect(isPrivateAddress("::ffff:7f00:1")).toBe(true);
    expect(isPrivateAddress("::ffff:808:808")).toBe(false);
    expect(isPrivateAddress("8.8.8.8")).toBe(false);
    expect(isPrivateAddress("example.com")).toBe(false);
    expect(isPrivateAddress("256.1.1.1")).toBe(false); // not an address at all
  });
});

describe("redactUrl", () => {
  it("drops query, fragment and credentials; keeps scheme, host, port and path", () => {
    expect(redactUrl("https://user:secret@mcp.example.com:8443/v1/mcp?api_key=abc#frag")).toBe("https://mcp.example.com:8443/v1/mcp");
    expect(redactUrl("http://example.com")).toBe("http://example.com/");
  });

  it("never echoes the secret parts", () => {
    const out = redactUrl("https://alice:hunter2@example.com/path?token=s3cr3t#access_token=t0k");
    expect(out).not.toContain("alice");
    expect(out).not.toContain("hunter2");
    expect(out).not.toContain("s3cr3t");
    expect(out).not.toContain("t0k");
  });

  it("an invalid URL becomes a placeholder, not the raw string", () => {
    expect(redactUrl("not a url ?token=secret")).toBe("(invalid url)");
  });
});
