import { describe, expect, it } from "vitest";
import {
  buildCatalog,
  canonicalJson,
  catalogFingerprint,
  modelInputSchema,
  RESOURCE_TOOLS,
  serverIdentity,
  sha256Hex,
  SYNTHETIC_SERVER,
  toCachedTool,
  withoutTools,
  type CachedTool,
} from "../../src/core/catalog.js";
import { TOOL_NAME_PATTERN } from "../../src/core/naming.js";

const SYNTHETIC = ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"];
const obj = (properties: Record<string, unknown> = {}) => ({ type: "object", properties });

const everything: CachedTool[] = [
  { name: "echo", description: "Echoes back the input", inputSchema: obj({ message: { type: "string" } }) },
  { name: "get-sum", description: "Returns the sum of two numbers", inputSchema: obj({ a: { type: "number" }, b: { type: "number" } }) },
  {
    name: "get-structured-content",
    inputSchema: obj({ location: { type: "string" } }),
    outputSchema: obj({ temperature: { type: "number" } }),
  },
];

describe("buildCatalog", () => {
  it("names, describes and sorts server tools; no synthetic tools without resources", () => {
    const catalog = buildCatalog([{ server: "everything", tools: everything }], { withResourceTools: false });
    expect(catalog.tools.map((t) => t.name)).toEqual(["everything_echo", "everything_get-structured-content", "everything_get-sum"]);
    expect(catalog.tools.some((t) => SYNTHETIC.includes(t.name))).toBe(false);
    expect(catalog.tools[0]).toEqual({
      name: "everything_echo",
      server: "everything",
      tool: "echo",
      description: "Echoes back the input",
      inputSchema: obj({ message: { type: "string" } }),
    });
    // No description → "", outputSchema kept only when present.
    const structured = catalog.tools.find((t) => t.tool === "get-structured-content")!;
    expect(structured.description).toBe("");
    expect(structured.outputSchema).toEqual(obj({ temperature: { type: "number" } }));
    expect("outputSchema" in catalog.tools[0]!).toBe(false);
    expect(catalog.targets.get("everything_get-sum")).toEqual({ kind: "server", server: "everything", tool: "get-sum" });
    expect(catalog.targets.size).toBe(3);
  });

  it("adds the three synthetic resource tools when withResourceTools, sorted in with the rest", () => {
    const catalog = buildCatalog([{ server: "everything", tools: everything }], { withResourceTools: true });
    const names = catalog.tools.map((t) => t.name);
    for (const name of SYNTHETIC) {
      expect(names).toContain(name);
      expect(catalog.targets.get(name)).toEqual({ kind: "synthetic", tool: name });
      const tool = catalog.tools.find((t) => t.name === name)!;
      expect(tool.server).toBe(SYNTHETIC_SERVER);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description.length).toBeGreaterThan(0);
    }
    expect(names).toEqual([...names].sort());
    expect(names).toHaveLength(6);
    expect(catalog.targets.size).toBe(6);
    expect(RESOURCE_TOOLS.find((t) => t.name === "read_mcp_resource")!.inputSchema.required).toEqual(["server", "uri"]);
  });

  it("with no servers: empty, or just the synthetic tools", () => {
    expect(buildCatalog([], { withResourceTools: false })).toMatchObject({ tools: [], targets: new Map(), displaced: [] });
    expect(buildCatalog([], { withResourceTools: true }).tools.map((t) => t.name)).toEqual([...SYNTHETIC].sort());
  });

  it("a server tool that sanitizes to a synthetic name gets another name; both stay reachable", () => {
    const servers = [
      { server: "list", tools: [{ name: "mcp_resources", inputSchema: obj() }] },
      { server: "read.mcp", tools: [{ name: "resource", inputSchema: obj() }] },
      { server: "list_mcp", tools: [{ name: "resource templates", inputSchema: obj() }] },
    ];
    const catalog = buildCatalog(servers, { withResourceTools: true });
    const names = catalog.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(catalog.targets.size).toBe(names.length);
    for (const name of SYNTHETIC) expect(catalog.targets.get(name)).toEqual({ kind: "synthetic", tool: name });
    for (const { server, tools } of servers) {
      const entry = catalog.tools.find((t) => t.server === server)!;
      expect(SYNTHETIC).not.toContain(entry.name);
      expect(entry.name).toMatch(TOOL_NAME_PATTERN);
      expect(catalog.targets.get(entry.name)).toEqual({ kind: "server", server, tool: tools[0]!.name });
    }
    expect(names).toEqual([...names].sort());
  });

  it("without resource tools, a server tool may use a synthetic-looking name", () => {
    const catalog = buildCatalog([{ server: "list", tools: [{ name: "mcp_resources", inputSchema: obj() }] }], { withResourceTools: false });
    expect(catalog.tools.map((t) => t.name)).toEqual(["list_mcp_resources"]);
    expect(catalog.targets.get("list_mcp_resources")).toEqual({ kind: "server", server: "list", tool: "mcp_resources" });
  });

  it("a renamed tool cannot take the name another server tool already has (synthetic rename collision)", () => {
    const first = buildCatalog([{ server: "list", tools: [{ name: "mcp_resources", inputSchema: obj() }] }], { withResourceTools: true });
    const renamed = first.tools.find((t) => t.server === "list")!.name;
    // A second tool whose plain name is exactly that renamed name.
    const catalog = buildCatalog(
      [{ server: "list", tools: [{ name: "mcp_resources", inputSchema: obj() }, { name: renamed.slice("list_".length), inputSchema: obj() }] }],
      { withResourceTools: true },
    );
    const names = catalog.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(catalog.targets.size).toBe(5);
    expect([...catalog.targets.values()].filter((t) => t.kind === "server").map((t) => (t.kind === "server" ? t.tool : "")).sort()).toEqual(
      ["mcp_resources", renamed.slice("list_".length)].sort(),
    );
  });

  it("colliding tools across servers all stay reachable through targets", () => {
    const catalog = buildCatalog(
      [
        { server: "x.y", tools: [{ name: "run", inputSchema: obj() }] },
        { server: "x_y", tools: [{ name: "run", inputSchema: obj() }, { name: "r.u.n", inputSchema: obj() }] },
      ],
      { withResourceTools: false },
    );
    expect(catalog.tools).toHaveLength(3);
    expect(catalog.targets.size).toBe(3);
    const targets = [...catalog.targets.values()].map((t) => (t.kind === "server" ? `${t.server}/${t.tool}` : t.tool)).sort();
    expect(targets).toEqual(["x.y/run", "x_y/r.u.n", "x_y/run"]);
  });

  it("is independent of server and tool order", () => {
    const a = buildCatalog(
      [
        { server: "b", tools: [{ name: "t.1", inputSchema: obj() }, { name: "t_1", inputSchema: obj() }] },
        { server: "a", tools: [{ name: "z", inputSchema: obj() }] },
      ],
      { withResourceTools: true },
    );
    const b = buildCatalog(
      [
        { server: "a", tools: [{ name: "z", inputSchema: obj() }] },
        { server: "b", tools: [{ name: "t_1", inputSchema: obj() }, { name: "t.1", inputSchema: obj() }] },
      ],
      { withResourceTools: true },
    );
    expect(b.tools).toEqual(a.tools);
    expect([...b.targets].sort()).toEqual([...a.targets].sort());
  });
});

describe("modelInputSchema / toCachedTool", () => {
  it("always sets type object and an object properties", () => {
    expect(modelInputSchema(undefined)).toEqual({ type: "object", properties: {} });
    expect(modelInputSchema(null)).toEqual({ type: "object", properties: {} });
    expect(modelInputSchema("string")).toEqual({ type: "object", properties: {} });
    expect(modelInputSchema([1, 2])).toEqual({ type: "object", properties: {} });
    expect(modelInputSchema({})).toEqual({ type: "object", properties: {} });
    expect(modelInputSchema({ type: "string" })).toEqual({ type: "object", properties: {} });
    expect(modelInputSchema({ properties: [] })).toEqual({ type: "object", properties: {} });
  });

  it("keeps the rest of the schema", () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    expect(modelInputSchema(schema)).toEqual({ ...schema, type: "object" });
  });

  it("toCachedTool keeps name, description and a record outputSchema only", () => {
    expect(toCachedTool({ name: "t", inputSchema: { properties: { x: {} } }, outputSchema: "nope" })).toEqual({
      name: "t",
      inputSchema: { type: "object", properties: { x: {} } },
    });
    expect(toCachedTool({ name: "t", description: "d", outputSchema: { type: "object" } })).toEqual({
      name: "t",
      description: "d",
      inputSchema: { type: "object", properties: {} },
      outputSchema: { type: "object" },
    });
  });
});

describe("canonicalJson", () => {
  it("is independent of key order, at every depth", () => {
    const a = { b: 1, a: { y: [1, { q: 1, p: 2 }], x: null }, c: "s" };
    const b = { c: "s", a: { x: null, y: [1, { p: 2, q: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[1,{"p":2,"q":1}]},"b":1,"c":"s"}');
  });

  it("keeps array order and drops undefined object values", () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined])).toBe("[null]");
    expect(canonicalJson(undefined)).toBe("null");
  });

  it("round-trips to the same value", () => {
    const value = { z: ["é", "\u0000", 1.5, true], "k\"ey": { n: -0.25 } };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});

describe("sha256Hex / catalogFingerprint / serverIdentity", () => {
  it("sha256Hex matches the known vector", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("catalogFingerprint is stable across key order", async () => {
    const a: CachedTool[] = [{ name: "echo", description: "d", inputSchema: { type: "object", properties: { m: { type: "string", description: "x" } } } }];
    const b: CachedTool[] = [{ inputSchema: { properties: { m: { description: "x", type: "string" } }, type: "object" }, description: "d", name: "echo" }];
    const fa = await catalogFingerprint(a);
    expect(fa).toMatch(/^[0-9a-f]{64}$/);
    expect(await catalogFingerprint(b)).toBe(fa);
  });

  it("catalogFingerprint differs when the tools differ", async () => {
    const base: CachedTool[] = [{ name: "echo", inputSchema: obj({ m: { type: "string" } }) }];
    const f = await catalogFingerprint(base);
    expect(await catalogFingerprint([{ name: "echo2", inputSchema: obj({ m: { type: "string" } }) }])).not.toBe(f);
    expect(await catalogFingerprint([{ name: "echo", description: "new", inputSchema: obj({ m: { type: "string" } }) }])).not.toBe(f);
    expect(await catalogFingerprint([{ name: "echo", inputSchema: obj({ m: { type: "number" } }) }])).not.toBe(f);
    expect(await catalogFingerprint([...base, { name: "extra", inputSchema: obj() }])).not.toBe(f);
    expect(await catalogFingerprint([])).not.toBe(f);
  });

  it("serverIdentity depends on url and credentials, not on key order or unrelated fields", async () => {
    const id = await serverIdentity({ type: "remote", url: "https://x/mcp", headers: { A: "1", B: "2" } });
    expect(await serverIdentity({ headers: { B: "2", A: "1" }, url: "https://x/mcp", type: "remote" })).toBe(id);
    expect(await serverIdentity({ type: "remote", url: "https://x/mcp", headers: { A: "1", B: "3" } })).not.toBe(id);
    expect(await serverIdentity({ type: "remote", url: "https://y/mcp", headers: { A: "1", B: "2" } })).not.toBe(id);
    const withTimeout = { type: "remote", url: "https://x/mcp", headers: { A: "1", B: "2" }, timeout: 5 };
    expect(await serverIdentity(withTimeout)).toBe(id);
  });
});

describe("buildCatalog: reserved names and fingerprint", () => {
  it("a server tool that would take a reserved (meta-tool) name gets an alternative and is reported", () => {
    const catalog = buildCatalog([{ server: "call", tools: [{ name: "tool", inputSchema: obj() }] }], { withResourceTools: false, reserved: ["call_tool"] });
    const name = catalog.tools[0]!.name;
    expect(name).not.toBe("call_tool");
    expect(name).toMatch(/^call_tool_[0-9a-f]{8}$/);
    expect(catalog.displaced).toEqual([{ server: "call", tool: "tool", name }]);
    expect(catalog.targets.get(name)).toEqual({ kind: "server", server: "call", tool: "tool" });
  });

  it("the fingerprint changes with the list and not with input order", () => {
    const a = buildCatalog([{ server: "s", tools: [{ name: "a", inputSchema: obj() }, { name: "b", inputSchema: obj() }] }], { withResourceTools: false });
    const b = buildCatalog([{ server: "s", tools: [{ name: "b", inputSchema: obj() }, { name: "a", inputSchema: obj() }] }], { withResourceTools: false });
    const c = buildCatalog([{ server: "s", tools: [{ name: "a", description: "new", inputSchema: obj() }, { name: "b", inputSchema: obj() }] }], { withResourceTools: false });
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).not.toBe(c.fingerprint);
  });
});

describe("withoutTools (the session's deny rules)", () => {
  const full = buildCatalog([{ server: "everything", tools: everything }], { withResourceTools: false });

  it("drops hidden tools from the list, the targets and the name index, and changes the fingerprint", () => {
    const visible = withoutTools(full, (name) => name.startsWith("everything_get-"));
    expect(visible.tools.map((t) => t.name)).toEqual(["everything_echo"]);
    expect([...visible.targets.keys()]).toEqual(["everything_echo"]);
    expect([...visible.byName.keys()]).toEqual(["everything_echo"]);
    expect(visible.fingerprint).not.toBe(full.fingerprint);
    expect(withoutTools(full, (name) => name === "everything_get-sum").fingerprint).not.toBe(visible.fingerprint);
  });

  it("hides nothing: the same catalog", () => {
    expect(withoutTools(full, () => false)).toBe(full);
  });
});
