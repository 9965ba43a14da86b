/**
 * The API description in plain Node: the OpenAPI document is well-formed (every $ref
 * resolves, every path parameter is declared, request and response bodies are named
 * components), and `src/api` and `src/client` stay runtime-neutral: the schemas import
 * only zod and the pure core, the client imports nothing at run time but its own files.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/api/openapi.js";
import { pathParameters, ROUTES, sessionPublicPath, toHonoPath } from "../../src/api/routes.js";
import * as S from "../../src/api/schemas.js";

const src = fileURLToPath(new URL("../../src/", import.meta.url));
const doc = openApiDocument({ version: "9.9.9" }) as unknown as Record<string, unknown> & { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

interface Operation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }>;
}

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with the given version and survives JSON", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect((doc.info as { version: string }).version).toBe("9.9.9");
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    expect(S.OpenApiDocument.safeParse(doc).success).toBe(true);
  });

  it("every $ref points at a component", () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(30);
    for (const ref of all) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.slice("#/components/schemas/".length)], ref).toBeDefined();
    }
  });

  it("components have no per-schema $schema or $id", () => {
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(Object.keys(schema as object), name).not.toContain("$schema");
      expect(Object.keys(schema as object), name).not.toContain("$id");
    }
  });

  it("each route: its path parameters, query parameters, body and answers", () => {
    for (const route of ROUTES) {
      const op = doc.paths[route.path]![route.method]!;
      const declared = (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
      expect(declared, route.operationId).toEqual(pathParameters(route.path));
      expect(Boolean(op.requestBody), route.operationId).toBe(Boolean(route.body));
      expect(op.responses[String(route.response.status)], route.operationId).toBeDefined();
      for (const status of route.errors) expect(op.responses[String(status)]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/ErrorBody");
    }
  });

  it("GET /tools documents its query; POST /v1/sessions takes an optional body; tools/call a required one", () => {
    const list = doc.paths["/v1/sessions/{id}/tools"]!.get!;
    expect(list.parameters!.filter((p) => p.in === "query").map((p) => [p.name, p.required])).toEqual([
      ["mode", false],
      ["contextWindow", false],
      ["usedTokens", false],
      ["turn", false],
    ]);
    expect(doc.paths["/v1/sessions"]!.post!.requestBody!.required).toBe(false);
    const call = doc.paths["/v1/sessions/{id}/tools/call"]!.post!;
    expect(call.requestBody).toEqual({ required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/CallToolBody" } } } });
    expect(call.responses["200"]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/CallResult");
  });

  it("documents session bodies' server entries as ServerConfig, and an override's type as absent", () => {
    const body = doc.components.schemas.SessionBody as { properties: { servers: { additionalProperties: unknown } } };
    expect(body.properties.servers.additionalProperties).toEqual({ $ref: "#/components/schemas/ServerConfig" });
    const override = doc.components.schemas.ServerOverride as { properties: { type: unknown } };
    expect(override.properties.type).toEqual({ not: {} });
  });

  it("documents turns as sent: an id or {id, actorId?}", () => {
    expect(doc.components.schemas.TurnRef).toMatchObject({ anyOf: [{ type: "string" }, { type: "object", required: ["id"] }] });
  });
});

describe("route table helpers", () => {
  it("maps session-app paths to public ones", () => {
    expect(sessionPublicPath("post", "/")).toBe("/v1/sessions");
    expect(sessionPublicPath("get", "/")).toBe("/v1/sessions/{id}");
    expect(sessionPublicPath("post", "/tools/call")).toBe("/v1/sessions/{id}/tools/call");
    expect(toHonoPath("/v1/sessions/{id}/servers/{name}")).toBe("/v1/sessions/:id/servers/:name");
    expect(pathParameters("/v1/sessions/{id}/servers/{name}/connect")).toEqual(["id", "name"]);
  });
});

// ── Purity ──────────────────────────────────────────────────────────────────

/** Module specifiers loaded at run time (type-only imports and exports are left out). */
function runtimeImports(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1")
    .replace(/\b(?:import|export)\s+type\b[^;]*;/g, "");
  const out: string[] = [];
  for (const pattern of [
    /\b(?:import|export)\s+[^'"`;]*?\bfrom\s*(["'])([^"']+)\1/g,
    /\bimport\s*(["'])([^"']+)\1/g,
    /\bimport\s*\(\s*(["'`])([^"'`]+)\1\s*\)/g,
    /\brequire\s*\(\s*(["'`])([^"'`]+)\1\s*\)/g,
  ]) {
    for (const match of code.matchAll(pattern)) out.push(match[2]!);
  }
  return out;
}

const sources = (dir: string) =>
  readdirSync(`${src}${dir}`)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: `${dir}/${f}`, source: readFileSync(`${src}${dir}/${f}`, "utf8") }));

describe("purity", () => {
  it("the scanner leaves type-only imports out (self-test)", () => {
    const sample = 'import type { A } from "hono";\nexport type * from "./x.js";\nimport { b } from "zod";\nimport "node:fs";\nexport { c } from "./c.js";';
    expect(runtimeImports(sample).sort()).toEqual(["./c.js", "node:fs", "zod"]);
  });

  it("src/api imports only zod, itself and the pure core", () => {
    for (const { file, source } of sources("api")) {
      for (const s of runtimeImports(source)) expect(s === "zod" || /^\.\/[\w-]+\.js$/.test(s) || /^\.\.\/core\/[\w/-]+\.js$/.test(s), `${file}: ${s}`).toBe(true);
    }
  });

  it("src/client imports nothing at run time but its own modules and the pure SSE parser (bundled in)", () => {
    for (const { file, source } of sources("client")) {
      for (const s of runtimeImports(source)) expect(/^\.\/[\w-]+\.js$/.test(s) || s === "../core/sse-parser.js", `${file}: ${s}`).toBe(true);
    }
  });

  it("src/ai imports only ai, its own modules and the pure script-output formatter (bundled in) at run time", () => {
    for (const { file, source } of sources("ai")) {
      for (const s of runtimeImports(source)) expect(s === "ai" || /^\.\/[\w-]+\.js$/.test(s) || s === "../core/codemode/exec-output.js", `${file}: ${s}`).toBe(true);
    }
  });
});
