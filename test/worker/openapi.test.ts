/**
 * The route table, the Hono apps and the OpenAPI document agree: every route registered
 * in the Worker's router or the session app has a table entry and every entry a route;
 * the served document lists each; and real answers of the real Worker validate against
 * both the zod schemas and the JSON Schema generated from them. The schemas' types are
 * pinned to the implementation's types at compile time.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { BridgeSummary as HubBridgeSummary } from "../../durable-objects/bridge-hub.js";
import type { SearchResult as DiscoverySearchResult, ListedMode, ListToolsRequest } from "../../durable-objects/discovery.js";
import { sessionRoutes } from "../../durable-objects/session-routes.js";
import type { Session } from "../../durable-objects/session.js";
import { ROUTES, sessionPublicPath, toHonoPath, type Method } from "../../src/api/routes.js";
import * as S from "../../src/api/schemas.js";
import { createRouter } from "../../src/app.js";
import type { ApiTool as CatalogApiTool } from "../../src/core/catalog.js";
import type { ExecOutcome } from "../../src/core/codemode/exec-output.js";
import type { ExecuteArguments } from "../../src/core/codemode/execute-tool.js";
import type { ServerStatus as CoreServerStatus } from "../../src/core/connection-state.js";
import type { ErrorBody as CoreErrorBody } from "../../src/core/errors.js";
import type { NormalizedResult } from "../../src/core/normalize.js";
import { api, peers, remote } from "./helpers.js";

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** The Hono apps' registered routes, as public `METHOD /path` keys (Hono `:param` syntax). */
function registeredRoutes(): Map<string, "worker" | "session"> {
  const out = new Map<string, "worker" | "session">();
  for (const r of createRouter().routes) out.set(key(r.method, r.path), "worker");
  // Route registration never touches the session; the handlers are not run here.
  for (const r of sessionRoutes({} as Session).routes) {
    out.set(key(r.method, toHonoPath(sessionPublicPath(r.method.toLowerCase() as Method, r.path.replace(/:(\w+)/g, "{$1}")))), "session");
  }
  return out;
}

describe("the route table covers the Hono apps", () => {
  const registered = registeredRoutes();
  // The OAuth library's own endpoints are not Hono routes; test/worker/auth.test.ts proves they answer.
  const table = new Map(ROUTES.filter((r) => r.served !== "provider").map((r) => [key(r.method, toHonoPath(r.path)), r.served]));

  it("finds the apps' routes (self-test)", () => {
    expect(registered.get("GET /health")).toBe("worker");
    expect(registered.get("POST /v1/sessions/:id/tools/call")).toBe("session");
    expect(registered.get("POST /v1/sessions")).toBe("session");
    expect(registered.size).toBeGreaterThanOrEqual(20);
  });

  it("every registered route has an entry", () => {
    const missing = [...registered.keys()].filter((k) => !table.has(k));
    expect(missing, `routes without an entry in src/api/routes.ts: ${missing.join(", ")}`).toEqual([]);
  });

  it("every entry has a registered route, in the app it says", () => {
    const stale = [...table.keys()].filter((k) => !registered.has(k));
    expect(stale, `entries in src/api/routes.ts without a route: ${stale.join(", ")}`).toEqual([]);
    for (const [k, served] of table) expect(registered.get(k), k).toBe(served);
  });

  it("operation ids are unique", () => {
    const ids = ROUTES.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("GET /v1/openapi.json", () => {
  it("is OpenAPI 3.1 with every route of the table", async () => {
    const res = await api("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = S.OpenApiDocument.parse(res.body);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe((await api("GET", "/health")).body.version);
    const paths = doc.paths as Record<string, Record<string, { operationId: string }>>;
    for (const route of ROUTES) expect(paths[route.path]?.[route.method]?.operationId, key(route.method, route.path)).toBe(route.operationId);
    const operations = Object.values(paths).flatMap((p) => Object.keys(p));
    expect(operations).toHaveLength(ROUTES.length);
  });
});

describe("real answers match the schemas and the generated JSON Schema", () => {
  let validators: Map<string, Validator> | undefined;

  async function check(component: string, value: unknown): Promise<void> {
    if (!validators) {
      const doc = (await api("GET", "/v1/openapi.json")).body as Record<string, unknown>;
      validators = new Map();
      const components = (doc.components as { schemas: Record<string, unknown> }).schemas;
      for (const name of Object.keys(components)) validators.set(name, new Validator({ ...doc, $ref: `#/components/schemas/${name}` }, "2020-12"));
    }
    const result = validators.get(component)!.validate(value);
    expect(result.errors, `${component}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
    const schema = (S as Record<string, unknown>)[component] as z.ZodType;
    expect(schema.safeParse(value).success, component).toBe(true);
  }

  it("a session's answers", async () => {
    const created = await api("POST", "/v1/sessions", { servers: { everything: remote(peers.everything), fixture: remote(peers.fixture) } });
    expect(created.status).toBe(201);
    await check("SessionInfo", created.body);
    const id = created.body.id as string;
    const base = `/v1/sessions/${id}`;
    await check("SessionInfo", (await api("GET", base)).body);
    await check("ToolList", (await api("GET", `${base}/tools`)).body);
    await check("ToolList", (await api("GET", `${base}/tools?mode=search&turn=t1`)).body);
    await check("SearchResults", (await api("POST", `${base}/tools/search`, { query: "echo", turn: "t1" })).body);
    await check("CallResult", (await api("POST", `${base}/tools/call`, { name: "everything_echo", arguments: { message: "hi" } })).body);
    await check("CallResult", (await api("POST", `${base}/tools/call`, { name: "everything_get-tiny-image" })).body);
    await check("ResourceList", (await api("GET", `${base}/resources`)).body);
    await check("ResourceTemplateList", (await api("GET", `${base}/resources/templates`)).body);
    await check("ReadResourceResult", (await api("POST", `${base}/resources/read`, { server: "everything", uri: "demo://resource/dynamic/text/1" })).body);
    await check("PromptList", (await api("GET", `${base}/prompts`)).body);
    await check("GetPromptResult", (await api("POST", `${base}/prompts/get`, { server: "everything", name: "simple-prompt" })).body);
    await check("Instructions", (await api("GET", `${base}/instructions`)).body);
    await check("ServerStatus", (await api("POST", `${base}/servers/fixture/disconnect`)).body);
    await check("ServerStatus", (await api("POST", `${base}/servers/fixture/connect`)).body);
    await check("ServerStatus", (await api("PUT", `${base}/servers/other`, remote(peers.fixture))).body);
    expect((await api("DELETE", base)).status).toBe(204);
  });

  it("errors, health and bridges", async () => {
    await check("Health", (await api("GET", "/health")).body);
    await check("BridgeList", (await api("GET", "/v1/bridges")).body);
    await check("ErrorBody", (await api("GET", "/v1/sessions/ses_0000000000000000000000000z")).body);
    await check("ErrorBody", (await api("POST", "/v1/sessions", { sever: {} })).body);
  });

  it("documents requests as the routes validate them", async () => {
    await check("CallToolBody", { name: "x", arguments: {}, turn: { id: "t", actorId: "a" } });
    await check("SessionBody", { servers: { a: remote(peers.everything) }, roots: ["file:///tmp"] });
    const doc = (await api("GET", "/v1/openapi.json")).body;
    const strict = new Validator({ ...doc, $ref: "#/components/schemas/SessionBody" }, "2020-12");
    // Each server entry is documented as a ServerConfig (validated per entry by the session).
    expect(strict.validate({ servers: { a: { type: "remote", url: "http://x", bogus: 1 } } }).valid).toBe(false);
    expect(strict.validate({ sever: {} }).valid).toBe(false);
  });
});

describe("the schemas' types are the implementation's", () => {
  it("compile-time checks", () => {
    expectTypeOf<S.CallResult>().toEqualTypeOf<NormalizedResult>();
    expectTypeOf<S.ApiTool>().toEqualTypeOf<CatalogApiTool>();
    expectTypeOf<S.ServerStatus>().toEqualTypeOf<CoreServerStatus>();
    expectTypeOf<S.SearchResult>().toEqualTypeOf<DiscoverySearchResult>();
    expectTypeOf<S.BridgeSummary>().toEqualTypeOf<HubBridgeSummary>();
    expectTypeOf<S.ErrorBody>().toEqualTypeOf<CoreErrorBody>();
    expectTypeOf<z.output<typeof S.ToolsQuery>["mode"]>().toEqualTypeOf<"auto" | "full" | "search" | "code">();
    expectTypeOf<z.output<typeof S.ToolsQuery>["mode"]>().toEqualTypeOf<ListToolsRequest["mode"]>();
    expectTypeOf<S.ToolList["mode"]>().toEqualTypeOf<ListedMode>();
    expectTypeOf<S.ExecResult>().toEqualTypeOf<ExecOutcome>();
    expectTypeOf<z.output<typeof S.ExecBody>>().toEqualTypeOf<ExecuteArguments>();
  });
});
