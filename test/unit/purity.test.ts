/**
 * src/core is the pure MCP logic: no Workers runtime, no Node APIs, no HTTP framework.
 * These tests read every module's source for its imports and load each one in plain Node.
 */
import { describe, expect, it } from "vitest";

// Node's own modules, loaded by a computed specifier: the project's tsconfig types the
// Workers runtime (no @types/node), and this test alone needs the file system.
interface NodeFs {
  readdirSync(path: string, options: { withFileTypes: true }): { name: string; isDirectory(): boolean }[];
  readFileSync(path: string, encoding: "utf8"): string;
}
const load = (name: string): Promise<unknown> => import(/* @vite-ignore */ `node:${name}`);
const fs = (await load("fs")) as NodeFs;
const { builtinModules } = (await load("module")) as { builtinModules: string[] };

const testPath = expect.getState().testPath!;
const coreDir = testPath.replace(/[\\/]test[\\/]unit[\\/]purity\.test\.ts$/, "/src/core/");
/** Every .ts file under src/core, as a path relative to it ("naming.ts", "search/index.ts"). */
function listModules(relative = ""): string[] {
  return fs.readdirSync(coreDir + relative, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return listModules(`${relative}${entry.name}/`);
    return entry.name.endsWith(".ts") ? [relative + entry.name] : [];
  });
}
const files = listModules().sort();

/** Does a relative specifier from `file` stay inside src/core? */
function staysInCore(file: string, specifier: string): boolean {
  const parts = file.split("/").slice(0, -1);
  for (const segment of specifier.split("/")) {
    if (segment === "..") {
      if (parts.length === 0) return false;
      parts.pop();
    } else if (segment !== ".") parts.push(segment);
  }
  return true;
}

const PURE_PACKAGES = ["zod", "quickjs-emscripten-core"];
const FORBIDDEN_PREFIXES = ["cloudflare:", "node:", "hono", "agents", "@cloudflare/"];
const NODE_BUILTINS = new Set(builtinModules.map((m) => m.replace(/^node:/, "")));

/** Every module specifier: static imports/exports (incl. type-only and side-effect imports), import(), require(). */
function importSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const specifiers: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*(["'])([^"']+)\1/g,
    /\bimport\s*(["'])([^"']+)\1/g,
    /\bimport\s*\(\s*(["'`])([^"'`]+)\1\s*\)/g,
    /\brequire\s*\(\s*(["'`])([^"'`]+)\1\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) specifiers.push(match[2]!);
  return specifiers;
}

/** Packages core may import: zod, QuickJS's core, and the AI SDK core and provider adapters. */
function allowedPackage(specifier: string): boolean {
  return PURE_PACKAGES.includes(specifier) || specifier === "ai" || /^@ai-sdk\/[a-z0-9-]+$/.test(specifier);
}

function forbidden(specifier: string): boolean {
  if (FORBIDDEN_PREFIXES.some((p) => specifier.startsWith(p))) return true;
  const root = specifier.split("/")[0]!;
  return NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(root);
}

describe("src/core purity", () => {
  it("finds the core modules", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "catalog.ts",
        "config.ts",
        "connection-state.ts",
        "errors.ts",
        "instructions.ts",
        "naming.ts",
        "normalize.ts",
        "pagination.ts",
        "resources.ts",
        "url-policy.ts",
        "search/index.ts",
        "search/tokenize.ts",
        "permissions.ts",
        "elicitation.ts",
        "sampling/request.ts",
        "sampling/select.ts",
        "sampling/run.ts",
        "sampling/provider-factory.ts",
      ]),
    );
    expect(staysInCore("search/index.ts", "../naming.js")).toBe(true);
    expect(staysInCore("search/index.ts", "../../durable-objects/x.js")).toBe(false);
    expect(staysInCore("naming.ts", "../env.js")).toBe(false);
  });

  it("the import scanner sees every form of import (self-test)", () => {
    const sample = [
      'import { a } from "node:fs";',
      "import type { B } from 'hono';",
      'import * as c from "crypto";',
      'import "cloudflare:workers";',
      'export { d } from "agents/mcp";',
      'const e = await import("@cloudflare/workers-types");',
      'const f = require("path");',
      "import {\n  g,\n  h,\n} from \"http\";",
      '// import { x } from "fs";',
      "import { ok } from './ok.js';",
    ].join("\n");
    expect(importSpecifiers(sample)).toEqual(
      expect.arrayContaining(["node:fs", "hono", "crypto", "cloudflare:workers", "agents/mcp", "@cloudflare/workers-types", "path", "http", "./ok.js"]),
    );
    expect(importSpecifiers(sample)).not.toContain("fs");
    expect(["node:fs", "hono", "crypto", "cloudflare:workers", "agents/mcp", "@cloudflare/workers-types", "path", "http", "fs/promises"].every(forbidden)).toBe(true);
    expect(["./ok.js", "zod", "@modelcontextprotocol/sdk/types.js"].some(forbidden)).toBe(false);
    expect(["zod", "ai", "@ai-sdk/openai-compatible"].every(allowedPackage)).toBe(true);
    expect(["hono", "@ai-sdk/../../x", "@modelcontextprotocol/sdk/types.js", "aiohttp"].some(allowedPackage)).toBe(false);
  });

  for (const file of files) {
    it(`${file} imports nothing from Workers, Node, hono or agents`, () => {
      const specifiers = importSpecifiers(fs.readFileSync(coreDir + file, "utf8"));
      const bad = specifiers.filter(forbidden);
      expect(bad, `${file} imports ${bad.join(", ")}`).toEqual([]);
      // Everything else is relative (another core module, never outside src/core), zod, or
      // the AI SDK (runtime-neutral; sampling runs models through it), or QuickJS's runtime-neutral
      // core (code mode's runner is handed a loaded module).
      for (const s of specifiers) expect((s.startsWith(".") && staysInCore(file, s)) || allowedPackage(s), `${file}: ${s}`).toBe(true);
    });

    it(`${file} loads in plain Node`, async () => {
      const module = (await import(/* @vite-ignore */ `../../src/core/${file.replace(/\.ts$/, ".js")}`)) as Record<string, unknown>;
      expect(Object.keys(module).length).toBeGreaterThan(0);
    });
  }

  it("runs in Node, not workerd", () => {
    const { process } = globalThis as unknown as { process?: { versions?: { node?: string } } };
    expect(typeof process?.versions?.node).toBe("string");
    expect((globalThis as { WebSocketPair?: unknown }).WebSocketPair).toBeUndefined();
  });
});
