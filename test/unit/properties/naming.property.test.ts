/**
 * Tool naming and the catalog under generated server and tool names (lone surrogates,
 * astral characters, names that sanitize alike, 64+ characters, reserved names): every
 * model-facing name matches ^[a-zA-Z0-9_-]{1,64}$, names are unique, every tool stays
 * reachable through its original (server, tool), and the answer does not depend on order.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { buildCatalog, type CachedTool } from "../../../src/core/catalog.js";
import { nameTools, TOOL_NAME_PATTERN } from "../../../src/core/naming.js";
import { expectNoPollution, nastyString, PROTO_KEYS, RUNS } from "./arbitraries.js";

afterEach(expectNoPollution);

/** Names that collide after sanitizing ("a.b" / "a b" / "a_b"), long ones, reserved ones. */
const toolName = fc.oneof(
  fc.constantFrom("a.b", "a b", "a_b", "a-b", "a\uD800b", "a😀b", "call_tool", "search_tools", "list_mcp_resources", "", "_", "-", ...PROTO_KEYS),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: "binary", maxLength: 10 }),
  nastyString,
  fc.integer({ min: 55, max: 120 }).map((n) => "x".repeat(n)),
  fc.tuple(fc.integer({ min: 50, max: 70 }), fc.string({ maxLength: 4 })).map(([n, tail]) => "t".repeat(n) + tail),
);
const serverName = fc.oneof(fc.constantFrom("s", "s.1", "s_1", "s 1", "everything", "mcp", "a_b"), fc.string({ maxLength: 8 }), nastyString, fc.constant("y".repeat(70)));

const entries = fc.array(fc.record({ server: serverName, tool: toolName }), { maxLength: 40 });
const reserved = fc.array(fc.oneof(fc.constantFrom("call_tool", "search_tools", "s_a_b", "a_b_1"), fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/)), { maxLength: 6 });

describe("nameTools (property)", () => {
  it("every name matches the provider pattern, names are unique, reserved names are never handed out", () => {
    fc.assert(
      fc.property(entries, reserved, (list, taken) => {
        const named = nameTools(list, new Set(taken));
        expect(named).toHaveLength(list.length);
        for (const { name } of named) expect(name).toMatch(TOOL_NAME_PATTERN);
        expect(new Set(named.map((n) => n.name)).size).toBe(named.length);
        for (const { name } of named) expect(taken).not.toContain(name);
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("is deterministic whatever the input order, and sorted by name", () => {
    fc.assert(
      fc.property(entries.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }))), ([list, shuffled]) => {
        const a = nameTools(list).map(({ name, entry }) => [name, entry.server, entry.tool]);
        const b = nameTools(shuffled).map(({ name, entry }) => [name, entry.server, entry.tool]);
        expect(b).toEqual(a);
        const names = a.map(([name]) => name!);
        expect(names).toEqual([...names].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      }),
      { numRuns: RUNS.medium },
    );
  });
});

describe("buildCatalog (property)", () => {
  const tool: fc.Arbitrary<CachedTool> = fc.record({
    name: toolName,
    description: fc.option(fc.oneof(fc.string({ maxLength: 20 }), nastyString), { nil: undefined }),
    inputSchema: fc.constant({ type: "object", properties: {} }),
  });
  const servers = fc.uniqueArray(fc.record({ server: serverName, tools: fc.array(tool, { maxLength: 12 }) }), { maxLength: 6, selector: (s) => s.server });

  it("names match, stay unique, every (server, tool) stays reachable, fingerprint is stable", () => {
    fc.assert(
      fc.property(servers, fc.boolean(), reserved, (list, withResourceTools, taken) => {
        const catalog = buildCatalog(list, { withResourceTools, reserved: taken });
        const names = catalog.tools.map((t) => t.name);
        for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
        expect(new Set(names).size).toBe(names.length);
        expect(catalog.targets.size).toBe(names.length);
        const serverTools = list.reduce((n, s) => n + s.tools.length, 0);
        expect(names.length).toBe(serverTools + (withResourceTools ? 3 : 0));
        // Each listed (server, tool) is the target of exactly as many names as it was listed.
        const reached = new Map<string, number>();
        for (const target of catalog.targets.values()) {
          if (target.kind === "server") reached.set(`${target.server}\u0000${target.tool}`, (reached.get(`${target.server}\u0000${target.tool}`) ?? 0) + 1);
        }
        for (const s of list) for (const t of s.tools) expect(reached.get(`${s.server}\u0000${t.name}`)).toBeGreaterThan(0);
        expect(buildCatalog([...list].reverse(), { withResourceTools, reserved: taken }).fingerprint).toBe(catalog.fingerprint);
      }),
      { numRuns: RUNS.medium },
    );
  });
});
