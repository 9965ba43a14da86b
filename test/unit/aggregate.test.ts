import { describe, expect, it } from "vitest";
import { namePrompts, normalizedToContent, presentListed, refsResolve, requestedServer, requestedTurn, resourceOwner } from "../../src/core/aggregate.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import { buildCatalog } from "../../src/core/catalog.js";

const matches = (template: string, uri: string) => {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
};

describe("resourceOwner", () => {
  const owners = {
    resources: [
      { uri: "demo://a", server: "zeta" },
      { uri: "demo://a", server: "alpha" },
      { uri: "file:///x", server: "fs" },
    ],
    templates: [
      { uriTemplate: "demo://dynamic/{id}", server: "zeta" },
      { uriTemplate: "weird://{", server: "broken" },
    ],
    servers: ["alpha", "broken", "fs", "zeta"],
  };

  it("prefers the first server by name that listed the URI", () => {
    expect(resourceOwner("demo://a", owners, matches)).toBe("alpha");
    expect(resourceOwner("file:///x", owners, matches)).toBe("fs");
  });

  it("falls back to a matching template, ignoring templates that do not parse", () => {
    expect(resourceOwner("demo://dynamic/42", owners, matches)).toBe("zeta");
    expect(resourceOwner("weird://x", owners, matches)).toBeUndefined();
  });

  it("uses the only server with resources, and says nothing when several could", () => {
    expect(resourceOwner("other://q", { resources: [], templates: [], servers: ["only"] }, matches)).toBe("only");
    expect(resourceOwner("other://q", owners, matches)).toBeUndefined();
  });
});

describe("presentation", () => {
  it("keeps URIs and moves the server into _meta", () => {
    expect(presentListed([{ uri: "demo://a", name: "a", server: "s", _meta: { keep: 1 } }])).toEqual([
      { uri: "demo://a", name: "a", _meta: { keep: 1, "io.mcp-edge/server": "s" } },
    ]);
  });

  it("names prompts exactly like tools, unprefixed servers included", () => {
    const named = namePrompts([
      { server: "b.srv", name: "greet" },
      { server: "a", name: "greet" },
      { server: "plain", name: "solo", prefix: false },
    ]);
    expect(named.map((p) => p.name)).toEqual(["a_greet", "b_srv_greet", "solo"]);
    expect(named[1]!.entry).toEqual({ server: "b.srv", name: "greet" });
    const tools = buildCatalog([{ server: "b.srv", tools: [{ name: "greet", inputSchema: { type: "object", properties: {} } }] }], { withResourceTools: false });
    expect(tools.tools[0]!.name).toBe("b_srv_greet");
  });

  it("an unprefixed server's tools that collide with another's still all get distinct names", () => {
    const schema = { type: "object", properties: {} };
    const catalog = buildCatalog(
      [
        { server: "x", tools: [{ name: "echo", inputSchema: schema }] },
        { server: "plain", tools: [{ name: "x_echo", inputSchema: schema }, { name: "echo", inputSchema: schema }], prefix: false },
      ],
      { withResourceTools: false },
    );
    const names = catalog.tools.map((t) => t.name);
    expect(names).toContain("echo");
    expect(new Set(names).size).toBe(3);
    expect(names.filter((n) => n.startsWith("x_echo_"))).toHaveLength(2);
  });
});

describe("request _meta", () => {
  it("reads the server and turn a request names", () => {
    expect(requestedServer({ "io.mcp-edge/server": "fs" })).toBe("fs");
    expect(requestedServer({ "io.mcp-edge/server": 3 })).toBeUndefined();
    expect(requestedServer(undefined)).toBeUndefined();
    expect(requestedTurn({ "io.mcp-edge/turn": "t1" })).toEqual({ id: "t1" });
    expect(requestedTurn({ "io.mcp-edge/turn": { id: "t2", actorId: "me" } })).toEqual({ id: "t2", actorId: "me" });
    expect(requestedTurn({ "io.mcp-edge/turn": { nope: 1 } })).toBeUndefined();
  });
});

describe("refsResolve", () => {
  it("accepts local pointers that resolve and refuses dangling or remote ones", () => {
    expect(refsResolve({ type: "object", $defs: { a: { type: "string" } }, properties: { x: { $ref: "#/$defs/a" } } })).toBe(true);
    expect(refsResolve({ properties: { x: { $ref: "#" } } })).toBe(true);
    expect(refsResolve({ properties: { a: { $ref: "#/$defs/missing" } } })).toBe(false);
    expect(refsResolve({ anyOf: [{ $ref: "https://example.com/schema.json" }] })).toBe(false);
    expect(refsResolve({ $defs: { "a/b": {} }, items: { $ref: "#/$defs/a~1b" } })).toBe(true);
  });
});

describe("normalizedToContent", () => {
  it("turns output and data-URL attachments into MCP content", () => {
    const result = normalizedToContent({
      output: "hello",
      attachments: [
        { mime: "image/png", url: "data:image/png;base64,iVBO" },
        { mime: "audio/wav", url: "data:audio/wav;base64,UklG" },
        { mime: "application/pdf", url: "data:application/pdf;base64,JVBE" },
      ],
      metadata: {},
      isError: false,
    });
    expect(result).toEqual({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "iVBO", mimeType: "image/png" },
        { type: "audio", data: "UklG", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "attachment:3", mimeType: "application/pdf", blob: "JVBE" } },
      ],
    });
  });

  it("keeps the error flag and never answers empty content", () => {
    expect(normalizedToContent({ output: "", attachments: [], metadata: {}, isError: true })).toEqual({ content: [{ type: "text", text: "" }], isError: true });
  });
});
