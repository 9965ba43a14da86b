/**
 * Code mode's declarations generator on tricky schemas: what each JSON Schema construct
 * becomes, and — with the real compiler (tsgo) — that the output type-checks, that a right
 * call passes and a wrong one fails. Random schemas (fast-check) never break the output.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codeModeDeclarations, propertyKey, schemaToType, toolAccess, toolSignature, type DeclaredTool } from "../../src/core/codemode/declarations.js";
import { typecheckScript } from "../support/typecheck.js";

const flat = (type: string) => type.replace(/\s+/g, " ");

describe("schemaToType", () => {
  it("primitives, integer, type lists and OpenAPI nullable", () => {
    expect(schemaToType({ type: "string" })).toBe("string");
    expect(schemaToType({ type: "integer" })).toBe("number");
    expect(schemaToType({ type: "boolean" })).toBe("boolean");
    expect(schemaToType({ type: "null" })).toBe("null");
    expect(schemaToType({ type: ["string", "null"] })).toBe("string | null");
    expect(schemaToType({ type: ["integer", "number"] })).toBe("number");
    expect(schemaToType({ type: "string", nullable: true })).toBe("string | null");
    expect(schemaToType({ type: "whatever" })).toBe("unknown");
  });

  it("boolean schemas, empty schemas and garbage never throw", () => {
    expect(schemaToType(true)).toBe("unknown");
    expect(schemaToType(false)).toBe("never");
    expect(schemaToType({})).toBe("unknown");
    for (const junk of [null, 3, "x", [], [{}], { properties: 5 }, { type: 7 }, { enum: "a" }, { items: 1 }, { anyOf: "no" }, { required: [1, null] }]) {
      expect(() => schemaToType(junk)).not.toThrow();
    }
  });

  it("enums and const become literal unions; long enums fall back to their base type", () => {
    expect(schemaToType({ enum: ["a", "b\"c", 1, true, null] })).toBe('"a" | "b\\"c" | 1 | true | null');
    expect(schemaToType({ const: "fixed" })).toBe('"fixed"');
    expect(schemaToType({ const: { a: 1 } })).toBe("unknown");
    expect(schemaToType({ enum: [] })).toBe("never");
    expect(schemaToType({ enum: Array.from({ length: 100 }, (_, i) => `v${i}`) })).toBe("string");
    expect(schemaToType({ type: "string", enum: ["x", "y"] })).toBe('"x" | "y"');
  });

  it("anyOf/oneOf are unions, allOf an intersection; required-only variants keep their meaning", () => {
    expect(schemaToType({ anyOf: [{ type: "string" }, { type: "number" }] })).toBe("string | number");
    expect(schemaToType({ oneOf: [{ type: "string" }, { type: "array", items: { type: ["string", "null"] } }] })).toBe("string | Array<string | null>");
    expect(flat(schemaToType({ allOf: [{ properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "number" } } }] }))).toBe(
      "{ a: string; } & { b?: number; }",
    );
    expect(flat(schemaToType({ type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, anyOf: [{ required: ["a"] }, { required: ["b"] }] }))).toBe(
      // At least one of a and b: TypeScript narrows `{a?: string} & {a: unknown}` to a required string.
      "{ a?: string; b?: string; } & ({ a: unknown; } | { b: unknown; })",
    );
    expect(schemaToType({ anyOf: [{ type: "string" }, {}] })).toBe("unknown");
  });

  it("objects: required and optional, closed, maps, and extra keys", () => {
    expect(flat(schemaToType({ type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a"] }))).toBe("{ a: string; b?: number; }");
    expect(schemaToType({ type: "object" })).toBe("Record<string, unknown>");
    expect(schemaToType({ type: "object", additionalProperties: false })).toBe("Record<string, never>");
    expect(schemaToType({ type: "object", additionalProperties: { type: "number" } })).toBe("Record<string, number>");
    expect(flat(schemaToType({ properties: { a: { type: "string" } }, additionalProperties: { type: "number" } }))).toBe("{ a?: string; [key: string]: unknown; }");
    expect(flat(schemaToType({ properties: { a: { type: "string" } }, patternProperties: { "^x": { type: "string" } } }))).toBe("{ a?: string; [key: string]: unknown; }");
    // A required name without a property schema is still required.
    expect(flat(schemaToType({ type: "object", required: ["id"] }))).toBe("{ id: unknown; }");
  });

  it("arrays and tuples (2020-12 prefixItems and draft-7 items arrays)", () => {
    expect(schemaToType({ type: "array", items: { type: "string" } })).toBe("string[]");
    expect(schemaToType({ type: "array" })).toBe("unknown[]");
    expect(schemaToType({ type: "array", items: { type: "array", items: { type: "number" } } })).toBe("number[][]");
    expect(schemaToType({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 1, items: false })).toBe("[string, number?]");
    expect(schemaToType({ type: "array", items: [{ type: "string" }], additionalItems: { type: "boolean" }, minItems: 1 })).toBe("[string, ...boolean[]]");
    expect(schemaToType({ type: "array", prefixItems: [{ const: 1 }] })).toBe("[1?, ...unknown[]]");
  });

  it("local $refs ($defs, definitions, JSON pointers); recursion and dangling refs become unknown", () => {
    const root = {
      $defs: { point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] } },
      definitions: { "a/b": { type: "string" } },
      type: "object",
      properties: { p: { $ref: "#/$defs/point" }, q: { $ref: "#/definitions/a~1b" }, r: { $ref: "#/properties/q" }, gone: { $ref: "#/$defs/nope" }, far: { $ref: "https://example.com/s.json" } },
    };
    expect(flat(schemaToType(root))).toBe("{ p?: { x: number; y: number; }; q?: string; r?: string; gone?: unknown; far?: unknown; }");
    const tree = { type: "object", properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#" } } }, required: ["value"] };
    expect(flat(schemaToType(tree))).toBe("{ value: string; children?: Array<{ value: string; children?: unknown[]; }>; }");
    const mutual = { $defs: { a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } }, b: { type: "object", properties: { a: { $ref: "#/$defs/a" } } } }, $ref: "#/$defs/a" };
    expect(flat(schemaToType(mutual))).toBe("{ b?: { a?: unknown; }; }");
  });

  it("descriptions and defaults become JSDoc, with comment terminators and newlines made safe", () => {
    const type = schemaToType({ type: "object", properties: { path: { type: "string", description: "A path */ evil()\nsecond line", default: "/tmp" } } });
    expect(type).toBe(["{", "  /**", "   * A path *\\/ evil()", "   * second line", '   * @default "/tmp"', "   */", "  path?: string;", "}"].join("\n"));
    // A markdown fence in a description cannot close the code block the declarations are shown in.
    expect(schemaToType({ properties: { a: { description: "see ```js\ncode``` here" } } })).not.toContain("```");
  });

  it("property names that are not identifiers are quoted", () => {
    expect(propertyKey("plain_name$1")).toBe("plain_name$1");
    for (const name of ["a-b", "1x", "", "with space", 'q"uote', "é"]) expect(propertyKey(name)).toBe(JSON.stringify(name));
    expect(toolAccess("everything_echo")).toBe("tools.everything_echo");
    expect(toolAccess("everything_get-sum")).toBe('tools["everything_get-sum"]');
  });

  it("depth and size caps", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 30; i++) deep = { type: "object", properties: { n: deep }, required: ["n"] };
    const capped = schemaToType(deep, { maxDepth: 3 });
    expect(flat(capped)).toBe("{ n: { n: { n: { n: unknown; }; }; }; }");
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`p${i}`, { type: "string" }])) };
    expect(flat(schemaToType(wide, { maxProperties: 2 }))).toBe("{ p0?: string; p1?: string; [key: string]: unknown; }");
    // Shared $refs multiply: 10 properties per level, 8 levels = 10^8 nodes unless the work is capped.
    const $defs: Record<string, unknown> = { d8: { type: "string" } };
    for (let i = 7; i >= 0; i--) $defs[`d${i}`] = { type: "object", properties: Object.fromEntries(Array.from({ length: 10 }, (_, p) => [`p${p}`, { $ref: `#/$defs/d${i + 1}` }])) };
    const bomb = { $defs, $ref: "#/$defs/d0" };
    // Uncapped, these would not return for hours (the test would time out).
    expect(schemaToType(bomb)).toBe("unknown");
    const shallower = toolSignature({ name: "s_bomb", server: "s", inputSchema: bomb });
    expect(shallower).toContain("s_bomb(args?: {");
    expect(shallower.length).toBeLessThanOrEqual(6_000 + 100);
    const huge: DeclaredTool = { name: "s_t", server: "s", inputSchema: wide };
    expect(toolSignature(huge, { maxTypeChars: 200 })).toBe("  s_t(args?: Record<string, unknown>): Promise<unknown>;");
  });
});

describe("codeModeDeclarations", () => {
  const tools: DeclaredTool[] = [
    {
      name: "everything_get-sum",
      server: "everything",
      description: "Returns the sum of two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    },
    { name: "everything_echo", server: "everything", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } },
    { name: "files_list", server: "my files */", description: "Lists */ files", inputSchema: { type: "object", properties: {} } },
    {
      name: "files_pick",
      server: "my files */",
      inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, anyOf: [{ required: ["a"] }, { required: ["b"] }] },
    },
  ];
  const declarations = codeModeDeclarations(tools);

  it("one typed method per tool, in sections per server, precise results where declared", () => {
    expect(declarations).toContain('  // ── server "everything": 2 tools ──');
    expect(declarations).toContain('  // ── server "my files */": 2 tools ──');
    expect(flat(declarations)).toContain('/** Returns the sum of two numbers */ "everything_get-sum"(args: { a: number; b: number; }): Promise<{ sum: number; }>;');
    expect(flat(declarations)).toContain("everything_echo(args: { message: string; }): Promise<unknown>;");
    expect(flat(declarations)).toContain("/** Lists *\\/ files */ files_list(args?: Record<string, unknown>): Promise<unknown>;");
    expect(declarations).toContain("declare function callTool(");
    expect(declarations).toContain("declare function search(");
  });

  it("type-checks: right calls pass", () => {
    const script = [
      'const { sum } = await tools["everything_get-sum"]({ a: 1, b: 2 });',
      "const doubled: number = sum * 2;",
      'const echoed = await tools.everything_echo({ message: "hi" });',
      "await tools.files_list();",
      'await tools.files_pick({ b: "only b" });',
      'const found = await search("sum", 3);',
      "console.log(found.map((f) => f.name).join(), echoed);",
      'return { doubled, any: await callTool("everything_echo", { message: "x" }) };',
    ].join("\n");
    const result = typecheckScript(declarations, script);
    expect(result.output).toBe("");
    expect(result.ok).toBe(true);
  });

  it("type-checks: a wrong argument type, a missing argument, a misspelt key and misuse of unknown fail", () => {
    for (const wrong of [
      'await tools["everything_get-sum"]({ a: "1", b: 2 });',
      'await tools["everything_get-sum"]({ a: 1 });',
      'await tools.everything_echo({ mesage: "hi" });',
      'const r = await tools.everything_echo({ message: "hi" }); r.length;',
      "await tools.everything_nope({});",
      "await tools.files_pick({});",
      "await fetch('https://example.com');",
    ]) {
      const result = typecheckScript(declarations, wrong);
      expect(result.ok, wrong).toBe(false);
      expect(result.output, wrong).toMatch(/error TS\d+/);
    }
  });

  it("recursive schemas: named type aliases where the cycle passes through a member, unknown for a bare cycle; they type-check", () => {
    const tree = {
      type: "object",
      properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
      required: ["value"],
    };
    const filter = {
      $defs: {
        filter: {
          anyOf: [
            { type: "object", properties: { and: { type: "array", items: { $ref: "#/$defs/filter" } } }, required: ["and"] },
            { type: "object", properties: { field: { type: "string" }, equals: { type: "string" } }, required: ["field", "equals"] },
          ],
        },
        bare: { anyOf: [{ $ref: "#/$defs/bare" }, { type: "string" }] },
      },
      type: "object",
      properties: { where: { $ref: "#/$defs/filter" }, odd: { $ref: "#/$defs/bare" } },
      required: ["where"],
    };
    const declared = codeModeDeclarations([
      { name: "docs_tree", server: "docs", inputSchema: tree, outputSchema: tree },
      // `#` is the document's root: here the arguments object, not the nested tree.
      { name: "docs_nested", server: "docs", inputSchema: { type: "object", properties: { root: tree } } },
      { name: "db_query", server: "db", inputSchema: filter },
      { name: "db_query-2", server: "db", inputSchema: filter },
    ]);
    expect(flat(declared)).toContain("type docs_tree_Result_Root = { value: string; children?: docs_tree_Result_Root[]; };");
    expect(flat(declared)).toContain("docs_tree(args: { value: string; children?: docs_tree_Args_Root[]; }): Promise<{ value: string; children?: docs_tree_Result_Root[]; }>;");
    expect(flat(declared)).toContain("type docs_nested_Args_Root = { root?: { value: string; children?: docs_nested_Args_Root[]; }; };");
    expect(flat(declared)).toContain("type db_query_Args_filter = { and: db_query_Args_filter[]; } | { field: string; equals: string; };");
    // Every tool's aliases get their own names.
    expect(flat(declared)).toContain("type db_query_2_Args_filter =");
    expect(flat(declared)).toContain("odd?: unknown;");
    const script = [
      "const t = await tools.docs_tree({ value: 'a', children: [{ value: 'b', children: [{ value: 'c', children: [] }] }] });",
      "await tools.docs_nested({ root: { value: 'a', children: [{ root: { value: 'b' } }] } });",
      "const depth = (n: { children?: unknown[] }): number => 1 + Math.max(0, ...(n.children ?? []).map((c) => depth(c as typeof n)));",
      "await tools.db_query({ where: { and: [{ field: 'x', equals: '1' }, { and: [{ field: 'y', equals: '2' }] }] } });",
      "return depth(t) + t.children![0]!.value.length;",
    ].join("\n");
    const ok = typecheckScript(declared, script);
    expect(ok.output).toBe("");
    expect(ok.ok).toBe(true);
    for (const wrong of [
      "await tools.db_query({ where: { and: [{ field: 'x', equals: 1 }] } });",
      "await tools.docs_tree({ value: 'a', children: [{ value: 2 }] });",
      "await tools.docs_nested({ root: { value: 'a', children: [{ value: 'b' }] } });",
    ]) expect(typecheckScript(declared, wrong).ok, wrong).toBe(false);
  });

  it("random schemas always give declarations that compile (fast-check, one compiler run)", () => {
    const leaf = fc.oneof(
      fc.constantFrom("string", "number", "integer", "boolean", "null", "object", "array", "bogus").map((type) => ({ type })),
      fc.record({ enum: fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant({ a: 1 })), { maxLength: 5 }) }),
      fc.record({ const: fc.oneof(fc.string(), fc.double(), fc.boolean()) }),
      fc.constantFrom({ $ref: "#" }, { $ref: "#/$defs/x" }, { $ref: "#/nope" }, true, false, {}),
    );
    const { schema } = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        fc.record(
          {
            type: fc.constantFrom("object", ["object", "null"]),
            properties: fc.dictionary(fc.string({ maxLength: 6 }), tie("schema"), { maxKeys: 4 }),
            required: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
            additionalProperties: fc.oneof(fc.boolean(), tie("schema")),
            description: fc.string(),
          },
          { requiredKeys: ["type"] },
        ),
        fc.record({ type: fc.constant("array"), items: tie("schema"), prefixItems: fc.array(tie("schema"), { maxLength: 3 }), minItems: fc.nat(3) }, { requiredKeys: ["type"] }),
        fc.record({ anyOf: fc.array(tie("schema"), { maxLength: 3 }) }),
        fc.record({ allOf: fc.array(tie("schema"), { maxLength: 3 }) }),
      ),
    }));
    const samples = fc.sample(fc.record({ $defs: fc.record({ x: schema }), properties: fc.dictionary(fc.string({ maxLength: 8 }), schema, { maxKeys: 5 }) }), { numRuns: 150, seed: 7 });
    const generated = samples.map((input, i): DeclaredTool => ({ name: `s_tool-${i}`, server: `server ${i % 3}`, description: `tool */ ${i}`, inputSchema: { type: "object", ...input }, outputSchema: input }));
    const result = typecheckScript(codeModeDeclarations(generated), "return Object.keys(tools).length;");
    expect(result.output).toBe("");
    expect(result.ok).toBe(true);
  });
});
