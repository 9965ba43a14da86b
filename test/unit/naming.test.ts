import { describe, expect, it } from "vitest";
import { MAX_TOOL_NAME_LENGTH, nameTools, sanitizeName, shortHash, TOOL_NAME_PATTERN, type ToolIdentity } from "../../src/core/naming.js";

/** mulberry32: a tiny seeded PRNG, so shuffles are random but reproducible. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const random = rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const key = (e: ToolIdentity) => `${e.server}\u0000${e.tool}`;

/** final name → identity, checking every name is valid and distinct and every input is present. */
function assertValidNaming(input: readonly ToolIdentity[], named: ReturnType<typeof nameTools>): Map<string, string> {
  expect(named).toHaveLength(input.length);
  const byName = new Map<string, string>();
  for (const { name, entry } of named) {
    expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(byName.has(name), `duplicate final name ${name}`).toBe(false);
    byName.set(name, key(entry));
  }
  expect(new Set(byName.values())).toEqual(new Set(input.map(key)));
  const names = named.map((n) => n.name);
  expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  return byName;
}

describe("sanitizeName", () => {
  it("keeps [a-zA-Z0-9_-] and replaces everything else with _", () => {
    expect(sanitizeName("Get-Weather_2")).toBe("Get-Weather_2");
    expect(sanitizeName("a.b/c d:e@f")).toBe("a_b_c_d_e_f");
    expect(sanitizeName("")).toBe("");
  });

  it("replaces one unicode code point with one _ (not one per UTF-16 unit)", () => {
    expect(sanitizeName("é")).toBe("_");
    expect(sanitizeName("😀")).toBe("_"); // a surrogate pair: 2 UTF-16 units, 1 code point
    expect(sanitizeName("a😀b𝔘c")).toBe("a_b_c");
    expect(sanitizeName("日本語")).toBe("___");
    expect(sanitizeName("e\u0301")).toBe("e_"); // combining accent is its own code point
  });
});

describe("shortHash", () => {
  it("is 8 lowercase hex digits and deterministic", () => {
    expect(shortHash("x")).toMatch(/^[0-9a-f]{8}$/);
    expect(shortHash("server\u0000tool")).toBe(shortHash("server\u0000tool"));
    expect(shortHash("a")).not.toBe(shortHash("b"));
  });

  it("is FNV-1a 32 over UTF-8 (known vectors)", () => {
    expect(shortHash("")).toBe("811c9dc5");
    expect(shortHash("a")).toBe("e40c292c");
    expect(shortHash("foobar")).toBe("bf9cf968");
  });
});

describe("nameTools", () => {
  it("joins sanitized server and tool with _", () => {
    const named = nameTools([{ server: "git.hub", tool: "create issue" }]);
    expect(named).toEqual([{ name: "git_hub_create_issue", entry: { server: "git.hub", tool: "create issue" } }]);
  });

  it("keeps the original entry (dispatch uses original names) including extra fields", () => {
    const entry = { server: "ev.ery", tool: "echo/1", extra: 42 };
    const [named] = nameTools([entry]);
    expect(named!.entry).toBe(entry);
  });

  it("sorts by final name", () => {
    const named = nameTools([
      { server: "b", tool: "z" },
      { server: "a", tool: "y" },
      { server: "B", tool: "a" },
      { server: "a", tool: "x" },
    ]);
    expect(named.map((n) => n.name)).toEqual(["B_a", "a_x", "a_y", "b_z"]);
  });

  it("a name of exactly 64 characters is kept as is", () => {
    const tool = "t".repeat(64 - "srv_".length);
    const [named] = nameTools([{ server: "srv", tool }]);
    expect(named!.name).toBe(`srv_${tool}`);
    expect(named!.name).toHaveLength(64);
  });

  it("cuts longer names to 64 with a deterministic hash suffix of the identity", () => {
    const tool = "t".repeat(100);
    const [a] = nameTools([{ server: "srv", tool }]);
    const [b] = nameTools([{ server: "srv", tool }]);
    expect(a!.name).toHaveLength(64);
    expect(a!.name).toBe(b!.name);
    expect(a!.name).toBe(`srv_${"t".repeat(51)}_${shortHash(`srv\u0000${tool}`)}`);
    expect(a!.name).toMatch(TOOL_NAME_PATTERN);
  });

  it("two long names sharing their first 64 characters stay distinct", () => {
    const prefix = "x".repeat(80);
    const input = [
      { server: "s", tool: `${prefix}1` },
      { server: "s", tool: `${prefix}2` },
    ];
    const named = nameTools(input);
    assertValidNaming(input, named);
    expect(named[0]!.name.slice(0, 55)).toBe(named[1]!.name.slice(0, 55));
  });

  it("tools 'a.b' and 'a_b' on one server both stay reachable with distinct hashed names", () => {
    const input = [
      { server: "s", tool: "a.b" },
      { server: "s", tool: "a_b" },
    ];
    const named = nameTools(input);
    const byName = assertValidNaming(input, named);
    expect(byName.get(`s_a_b_${shortHash("s\u0000a.b")}`)).toBe("s\u0000a.b");
    expect(byName.get(`s_a_b_${shortHash("s\u0000a_b")}`)).toBe("s\u0000a_b");
    expect(byName.has("s_a_b")).toBe(false);
  });

  it("servers 'x.y' and 'x_y' with the same tool both stay reachable", () => {
    const input = [
      { server: "x.y", tool: "run" },
      { server: "x_y", tool: "run" },
    ];
    const byName = assertValidNaming(input, nameTools(input));
    expect([...byName.keys()].every((n) => n.startsWith("x_y_run_"))).toBe(true);
  });

  it("separator ambiguity: server 'a' + tool 'b_c' vs server 'a_b' + tool 'c'", () => {
    const input = [
      { server: "a", tool: "b_c" },
      { server: "a_b", tool: "c" },
    ];
    assertValidNaming(input, nameTools(input));
  });

  it("unicode names that differ only in non-ASCII code points stay distinct", () => {
    const input = [
      { server: "s", tool: "café" },
      { server: "s", tool: "cafè" },
      { server: "s", tool: "caf😀" },
      { server: "s", tool: "caf_" },
    ];
    const byName = assertValidNaming(input, nameTools(input));
    expect(byName.size).toBe(4);
  });

  it("hashed-name-equals-plain-name: no two tools share a final name", () => {
    // A server can name a tool after another tool's hashed name (the hash is public and deterministic).
    const h = shortHash("s\u0000a.b");
    const input = [
      { server: "s", tool: "a.b" },
      { server: "s", tool: "a_b" },
      { server: "s", tool: `a_b_${h}` },
      { server: "s", tool: `a_b_${h}_1` },
      { server: "s", tool: `a_b_${h}_2` },
    ];
    for (let seed = 1; seed <= 5; seed++) {
      const named = nameTools(shuffle(input, seed));
      assertValidNaming(input, named);
    }
  });

  it("names in `reserved` are never handed out", () => {
    const input = [
      { server: "list", tool: "mcp_resources" },
      { server: "other", tool: "x" },
    ];
    const named = nameTools(input, new Set(["list_mcp_resources"]));
    assertValidNaming(input, named);
    expect(named.map((n) => n.name)).not.toContain("list_mcp_resources");
    expect(named.find((n) => n.entry.server === "list")!.name).toBe(`list_mcp_resources_${shortHash("list\u0000mcp_resources")}`);
  });

  it("many colliding names, shuffled with seeds: all valid, distinct, reachable and order-independent", () => {
    const servers = ["srv", "srv.", "srv_", "s r v", "s.r.v", "s_r_v", "日本", "ab", "a.b", "a_b"];
    const tools = ["get", "get.x", "get_x", "get x", "get/x", "get😀x", "get-x", "x".repeat(70), `${"x".repeat(69)}.`, `${"x".repeat(69)}_`, "é", "è"];
    const input: ToolIdentity[] = [];
    for (const server of servers) for (const tool of tools) input.push({ server, tool });
    // Tool names that collide across the server/tool separator too.
    input.push({ server: "a", tool: "b_get" }, { server: "a", tool: "b.get" }, { server: "a_b_get", tool: "x" }, { server: "a", tool: "b_get_x" });

    const reference = nameTools(input);
    const byName = assertValidNaming(input, reference);
    expect(byName.size).toBe(input.length);
    const refPairs = reference.map((n) => [n.name, key(n.entry)]);

    for (let seed = 1; seed <= 25; seed++) {
      const named = nameTools(shuffle(input, seed));
      assertValidNaming(input, named);
      expect(named.map((n) => [n.name, key(n.entry)])).toEqual(refPairs);
    }
  });

  it("random generated identities from a small alphabet (lots of collisions) are always valid", () => {
    const alphabet = ["a", "b", "_", ".", "-", " ", "é", "😀", "/"];
    for (let seed = 100; seed < 130; seed++) {
      const random = rng(seed);
      const pick = (len: number) => Array.from({ length: len }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      const seen = new Set<string>();
      const input: ToolIdentity[] = [];
      while (input.length < 60) {
        const long = random() < 0.2;
        const entry = { server: pick(1 + Math.floor(random() * 3)), tool: pick(long ? 60 + Math.floor(random() * 10) : 1 + Math.floor(random() * 4)) };
        if (seen.has(key(entry))) continue;
        seen.add(key(entry));
        input.push(entry);
      }
      const a = nameTools(input);
      const b = nameTools(shuffle(input, seed * 7));
      assertValidNaming(input, a);
      expect(b.map((n) => [n.name, key(n.entry)])).toEqual(a.map((n) => [n.name, key(n.entry)]));
    }
  });
});
