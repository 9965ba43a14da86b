import { describe, expect, it } from "vitest";
import { DEFAULT_SEARCH_CONFIG, resolveSearchConfig } from "../../src/core/search/config.js";
import { collectSchemaText, extractFields, fieldTexts } from "../../src/core/search/fields.js";
import { createTokenizer } from "../../src/core/search/tokenize.js";

describe("collectSchemaText", () => {
  const schema = {
    type: "object",
    description: "Arguments",
    properties: {
      path: { type: "string", description: "File to read" },
      options: {
        type: "object",
        properties: {
          encoding: { type: "string", description: "Text encoding" },
          range: { anyOf: [{ type: "null" }, { type: "object", properties: { startLine: { type: "integer", description: "First line" } } }] },
        },
      },
      tags: { type: "array", items: { type: "object", properties: { label: { type: "string" } } } },
      pairs: { type: "array", prefixItems: [{ description: "Key" }, { description: "Value" }] },
      ref: { $ref: "#/$defs/user" },
    },
    $defs: { user: { type: "object", description: "A user", properties: { email: { description: "Address" } } } },
    allOf: [{ properties: { mode: { enum: ["a", "b"], description: "Mode" } } }],
  };

  it("collects property names and descriptions recursively (properties, items, anyOf, allOf, prefixItems, $defs)", () => {
    const { names, descriptions } = collectSchemaText(schema, 8, 500);
    expect([...names].sort()).toEqual(["email", "encoding", "label", "mode", "options", "pairs", "path", "range", "ref", "startLine", "tags"]);
    expect([...descriptions].sort()).toEqual(["A user", "Address", "Arguments", "File to read", "First line", "Key", "Mode", "Text encoding", "Value"]);
  });

  it("stops at the depth bound (the root is depth 0; its property names count)", () => {
    expect(collectSchemaText(schema, 0, 500)).toEqual({ names: ["path", "options", "tags", "pairs", "ref"], descriptions: ["Arguments"] });
    const one = collectSchemaText(schema, 1, 500);
    expect(one.names).toEqual(expect.arrayContaining(["encoding", "range", "email", "mode"]));
    expect(one.names).not.toContain("startLine");
    expect(one.names).not.toContain("label");
  });

  it("stops at the node bound, even for a very deep or very wide schema", () => {
    let deep: Record<string, unknown> = { description: "leaf" };
    for (let i = 0; i < 10_000; i++) deep = { properties: { [`p${i}`]: deep } };
    expect(collectSchemaText(deep, 8, 500).names).toHaveLength(9); // depths 0 to 8
    const wide = { properties: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`p${i}`, { description: `d${i}` }])) };
    const { names, descriptions } = collectSchemaText(wide, 8, 100);
    expect(names).toHaveLength(5_000); // the root's own property names
    expect(descriptions).toHaveLength(99); // 99 children visited after the root
  });

  it("ignores what is not a schema object", () => {
    for (const value of [undefined, null, 42, "x", [], [{ properties: { a: {} } }]]) {
      expect(collectSchemaText(value, 8, 500)).toEqual({ names: [], descriptions: [] });
    }
    expect(collectSchemaText({ properties: { a: true, b: null, c: { description: 7 } }, items: [1, "x"] }, 8, 500)).toEqual({ names: ["a", "b", "c"], descriptions: [] });
  });

  it("takes own keys only (a property called __proto__ or description is just a name)", () => {
    const parsed = JSON.parse('{"properties":{"__proto__":{"description":"odd"},"description":{"type":"string"}}}') as unknown;
    expect(collectSchemaText(parsed, 8, 500)).toEqual({ names: ["__proto__", "description"], descriptions: ["odd"] });
  });
});

describe("extractFields", () => {
  const doc = {
    id: "files_read_text_file",
    server: "Files Server",
    name: "read_text_file",
    description: "Read a text file from disk",
    serverDescription: "Local filesystem access",
    inputSchema: { type: "object", properties: { filePath: { type: "string", description: "Absolute path" } } },
  };

  it("puts each part of a tool in its own field", () => {
    const fields = extractFields(doc, DEFAULT_SEARCH_CONFIG, createTokenizer(DEFAULT_SEARCH_CONFIG.tokenizer));
    expect(fields).toEqual({
      name: ["readtextfile"],
      nameWords: ["read", "text", "file"],
      description: ["read", "text", "file", "disk"],
      server: ["files", "server"],
      serverDescription: ["local", "filesystem", "access"],
      paramNames: ["file", "path", "filepath"],
      paramDescriptions: ["absolute", "path"],
    });
  });

  it("leaves a field with weight 0 empty, and tolerates missing optional parts", () => {
    const config = resolveSearchConfig({ fields: { paramNames: { weight: 0 }, paramDescriptions: { weight: 0 } } });
    const texts = fieldTexts({ id: "x", server: "s", name: "n" }, config);
    expect(texts).toEqual({ name: ["n"], nameWords: ["n"], description: [], server: ["s"], serverDescription: [], paramNames: [], paramDescriptions: [] });
  });
});
