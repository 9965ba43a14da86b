import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  deepMerge,
  mergeServerConfig,
  parseDeploymentServers,
  parseServerConfig,
  resolveTimeouts,
  SessionBodySchema,
} from "../../src/core/config.js";
import { McpEdgeError } from "../../src/core/errors.js";

/** Runs fn, asserts it throws an McpEdgeError, and returns it. */
function edgeError(fn: () => unknown): McpEdgeError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, "expected an McpEdgeError to be thrown").toBeInstanceOf(McpEdgeError);
  return thrown as McpEdgeError;
}

describe("parseServerConfig", () => {
  it("accepts a full remote config", () => {
    const input = {
      type: "remote",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer x" },
      oauth: { clientId: "id", scope: "read" },
      timeout: { startup: 1000, request: 2000 },
      enabled: true,
      sampling: "ask",
    };
    expect(parseServerConfig("ex", input)).toEqual(input);
  });

  it("accepts a local config and a type-less override", () => {
    expect(parseServerConfig("l", { type: "local", command: ["npx", "srv"], environment: { A: "1" } })).toEqual({
      type: "local",
      command: ["npx", "srv"],
      environment: { A: "1" },
    });
    expect(parseServerConfig("o", { enabled: false })).toEqual({ enabled: false });
    expect(parseServerConfig("o", { headers: { X: "y" }, timeout: 5 })).toEqual({ headers: { X: "y" }, timeout: 5 });
    expect(parseServerConfig("o", { type: "remote", url: "https://x", oauth: false })).toMatchObject({ oauth: false });
  });

  it("rejects unknown top-level keys as unknownKeys, naming each one", () => {
    const error = edgeError(() => parseServerConfig("srv", { type: "remote", url: "https://x", bogus: 1, extraThing: true }));
    expect(error.code).toBe("unknownKeys");
    expect(error.status).toBe(400);
    expect(error.message).toContain("bogus");
    expect(error.message).toContain("extraThing");
    expect(error.message).toContain('"srv"');
    expect((error.data as { unknownKeys: string[] }).unknownKeys).toEqual(["bogus", "extraThing"]);
    expect((error.data as { server: string }).server).toBe("srv");
  });

  it("rejects unknown keys in an override entry and in a local entry", () => {
    expect(edgeError(() => parseServerConfig("o", { enabled: false, colour: "red" })).data).toMatchObject({ unknownKeys: ["colour"] });
    expect(edgeError(() => parseServerConfig("l", { type: "local", url: "https://x" })).data).toMatchObject({ unknownKeys: ["url"] });
  });

  it("rejects unknown keys nested in timeout and oauth objects", () => {
    const t = edgeError(() => parseServerConfig("s", { type: "remote", url: "https://x", timeout: { startup: 1, connect: 2 } }));
    expect(t.code).toBe("unknownKeys");
    expect(t.message).toContain("connect");
    expect((t.data as { unknownKeys: string[] }).unknownKeys).toEqual(["connect"]);
    const o = edgeError(() => parseServerConfig("s", { type: "remote", url: "https://x", oauth: { clientId: "a", redirectUri: "b" } }));
    expect(o.code).toBe("unknownKeys");
    expect((o.data as { unknownKeys: string[] }).unknownKeys).toEqual(["redirectUri"]);
  });

  it("wrong types → invalidConfig naming the path", () => {
    const url = edgeError(() => parseServerConfig("s", { type: "remote", url: 5 }));
    expect(url.code).toBe("invalidConfig");
    expect(url.status).toBe(400);
    expect(url.message).toMatch(/^server "s": url: /);
    expect((url.data as { issues: Array<{ path: string[] }> }).issues[0]!.path).toEqual(["url"]);

    const header = edgeError(() => parseServerConfig("s", { type: "remote", url: "https://x", headers: { A: 1 } }));
    expect(header.code).toBe("invalidConfig");
    expect(header.message).toContain("headers.A");

    const enabled = edgeError(() => parseServerConfig("s", { enabled: "yes" }));
    expect(enabled.code).toBe("invalidConfig");
    expect(enabled.message).toContain("enabled");

    const sampling = edgeError(() => parseServerConfig("s", { type: "remote", url: "https://x", sampling: "always" }));
    expect(sampling.message).toContain("sampling");
  });

  it("timeouts must be positive integers", () => {
    for (const timeout of [0, -1, 1.5, "100", { startup: 0 }]) {
      const error = edgeError(() => parseServerConfig("s", { type: "remote", url: "https://x", timeout }));
      expect(error.code).toBe("invalidConfig");
      expect(error.message).toContain("timeout");
    }
  });

  it("remote requires a url", () => {
    const error = edgeError(() => parseServerConfig("s", { type: "remote" }));
    expect(error.code).toBe("invalidConfig");
    expect(error.message).toContain("url");
  });

  it('type must be "remote", "local" or absent', () => {
    for (const type of ["stdio", "http", 1, null, true]) {
      const error = edgeError(() => parseServerConfig("s", { type, url: "https://x" }));
      expect(error.code).toBe("invalidConfig");
      expect(error.message).toContain("type");
      expect(error.data).toMatchObject({ server: "s", path: ["type"] });
    }
  });

  it("a non-object entry is invalidConfig, not a crash", () => {
    for (const input of [null, "remote", 42, [{ type: "remote" }]]) {
      expect(edgeError(() => parseServerConfig("s", input)).code).toBe("invalidConfig");
    }
  });
});

describe("deepMerge", () => {
  it("merges nested objects; override wins on leaves; arrays are replaced", () => {
    expect(deepMerge({ a: 1, n: { x: 1, y: 2 }, arr: [1, 2] }, { n: { y: 3, z: 4 }, arr: [9] })).toEqual({ a: 1, n: { x: 1, y: 3, z: 4 }, arr: [9] });
  });

  it("undefined values in the override do not erase", () => {
    expect(deepMerge({ a: 1 }, { a: undefined })).toEqual({ a: 1 });
    expect(deepMerge({ a: 1 }, undefined)).toEqual({ a: 1 });
  });

  it("does not mutate its inputs", () => {
    const base = { n: { x: 1 } };
    const override = { n: { y: 2 } };
    deepMerge(base, override);
    expect(base).toEqual({ n: { x: 1 } });
    expect(override).toEqual({ n: { y: 2 } });
  });
});

describe("mergeServerConfig", () => {
  const deployment = parseServerConfig("gh", {
    type: "remote",
    url: "https://gh.example.com/mcp",
    headers: { Authorization: "Bearer deploy", "X-Org": "acme" },
    timeout: { startup: 5000, request: 20000 },
  });

  it("deep-merges a session entry over the deployment entry", () => {
    const session = parseServerConfig("gh", { headers: { Authorization: "Bearer user" }, timeout: { request: 1000 } });
    expect(mergeServerConfig("gh", deployment, session)).toEqual({
      ok: true,
      config: {
        type: "remote",
        url: "https://gh.example.com/mcp",
        headers: { Authorization: "Bearer user", "X-Org": "acme" },
        timeout: { startup: 5000, request: 1000 },
      },
    });
  });

  it("an entry with only {enabled:false} disables a deployment server and keeps the rest", () => {
    const merged = mergeServerConfig("gh", deployment, parseServerConfig("gh", { enabled: false }));
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.config.enabled).toBe(false);
    expect(merged.config).toMatchObject({ type: "remote", url: "https://gh.example.com/mcp" });
  });

  it("a session entry can re-enable a server the deployment disabled", () => {
    const base = parseServerConfig("x", { type: "remote", url: "https://x", enabled: false });
    const merged = mergeServerConfig("x", base, { enabled: true });
    expect(merged).toMatchObject({ ok: true, config: { enabled: true } });
  });

  it("the deployment entry alone, or the session entry alone, is usable", () => {
    expect(mergeServerConfig("gh", deployment, undefined)).toEqual({ ok: true, config: deployment });
    const own = parseServerConfig("mine", { type: "remote", url: "https://mine" });
    expect(mergeServerConfig("mine", undefined, own)).toEqual({ ok: true, config: own });
  });

  it('no type after the merge → {ok:false} with an error mentioning "type"', () => {
    const merged = mergeServerConfig("ghost", undefined, parseServerConfig("ghost", { url: "https://x" }));
    expect(merged.ok).toBe(false);
    if (merged.ok) return;
    expect(merged.error).toContain('"type"');
    expect(merged.error).toContain("ghost");
    expect(merged.enabled).toBe(true);
  });

  it("no type and enabled:false reports enabled false", () => {
    const merged = mergeServerConfig("ghost", undefined, { enabled: false });
    expect(merged).toMatchObject({ ok: false, enabled: false });
  });

  it("nothing at all is not usable", () => {
    expect(mergeServerConfig("none", undefined, undefined).ok).toBe(false);
  });

  it("a merge that leaves an invalid config is reported, not thrown", () => {
    // Switching a remote deployment server to local keeps its url, which local configs do not allow.
    const merged = mergeServerConfig("gh", deployment, parseServerConfig("gh", { type: "local", command: "srv" }));
    expect(merged.ok).toBe(false);
    if (merged.ok) return;
    expect(merged.error).toContain("url");
  });

  it("does not mutate the deployment entry", () => {
    const snapshot = structuredClone(deployment);
    mergeServerConfig("gh", deployment, { headers: { Authorization: "Bearer other" }, enabled: false });
    expect(deployment).toEqual(snapshot);
  });
});

describe("resolveTimeouts", () => {
  it("defaults: 30000 startup, 60000 request", () => {
    expect(resolveTimeouts({})).toEqual({ startup: DEFAULT_STARTUP_TIMEOUT_MS, request: DEFAULT_REQUEST_TIMEOUT_MS, maxTotal: DEFAULT_MAX_TOTAL_TIMEOUT_MS });
    expect(DEFAULT_STARTUP_TIMEOUT_MS).toBe(30_000);
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(60_000);
  });

  it("a number applies to startup and request", () => {
    expect(resolveTimeouts({ timeout: 1234 })).toMatchObject({ startup: 1234, request: 1234 });
    expect(resolveTimeouts({ timeout: 1234 }, 9999)).toMatchObject({ startup: 1234, request: 1234 });
  });

  it("object form sets each; missing parts fall back", () => {
    expect(resolveTimeouts({ timeout: { startup: 100, request: 200 } })).toMatchObject({ startup: 100, request: 200 });
    expect(resolveTimeouts({ timeout: { startup: 100 } })).toMatchObject({ startup: 100, request: 60_000 });
    expect(resolveTimeouts({ timeout: { request: 200 } })).toMatchObject({ startup: 30_000, request: 200 });
  });

  it("request falls back to the deployment default, then 60000", () => {
    expect(resolveTimeouts({}, 45_000)).toMatchObject({ startup: 30_000, request: 45_000 });
    expect(resolveTimeouts({ timeout: { startup: 10 } }, 45_000)).toMatchObject({ startup: 10, request: 45_000 });
    expect(resolveTimeouts({ timeout: { request: 7 } }, 45_000)).toMatchObject({ request: 7 });
  });

  it("maxTotal is at least the request timeout", () => {
    for (const request of [1, 60_000, DEFAULT_MAX_TOTAL_TIMEOUT_MS, DEFAULT_MAX_TOTAL_TIMEOUT_MS + 1, 3_600_000]) {
      const t = resolveTimeouts({ timeout: { request } });
      expect(t.maxTotal).toBeGreaterThanOrEqual(t.request);
      expect(t.maxTotal).toBe(Math.max(request, DEFAULT_MAX_TOTAL_TIMEOUT_MS));
    }
    expect(resolveTimeouts({}, 2 * DEFAULT_MAX_TOTAL_TIMEOUT_MS).maxTotal).toBe(2 * DEFAULT_MAX_TOTAL_TIMEOUT_MS);
  });
});

describe("parseDeploymentServers", () => {
  it("empty or missing → no servers", () => {
    expect(parseDeploymentServers(undefined)).toEqual({});
    expect(parseDeploymentServers("")).toEqual({});
    expect(parseDeploymentServers("   \n")).toEqual({});
  });

  it("parses a map of name → config", () => {
    const json = JSON.stringify({ everything: { type: "remote", url: "http://127.0.0.1:3001/mcp" }, off: { enabled: false } });
    expect(parseDeploymentServers(json)).toEqual({ everything: { type: "remote", url: "http://127.0.0.1:3001/mcp" }, off: { enabled: false } });
  });

  it("invalid JSON → McpEdgeError invalidConfig", () => {
    const error = edgeError(() => parseDeploymentServers("{not json"));
    expect(error.code).toBe("invalidConfig");
    expect(error.message).toContain("MCP_SERVERS");
  });

  it("a JSON value that is not an object → McpEdgeError invalidConfig", () => {
    for (const json of ["[]", "null", "42", '"servers"', "true"]) {
      const error = edgeError(() => parseDeploymentServers(json));
      expect(error.code).toBe("invalidConfig");
      expect(error.message).toContain("object");
    }
  });

  it("an invalid entry fails naming the server", () => {
    const error = edgeError(() => parseDeploymentServers(JSON.stringify({ good: { type: "remote", url: "https://x" }, bad: { type: "remote", url: "https://x", nope: 1 } })));
    expect(error.code).toBe("unknownKeys");
    expect(error.message).toContain('"bad"');
    expect(error.data).toMatchObject({ server: "bad", unknownKeys: ["nope"] });
  });
});

describe("SessionBodySchema", () => {
  it("accepts servers and roots, rejects unknown top-level keys and bad server names", () => {
    expect(SessionBodySchema.safeParse({ servers: { a: {} }, roots: ["file:///tmp"] }).success).toBe(true);
    expect(SessionBodySchema.safeParse({ servers: {}, extra: 1 }).success).toBe(false);
    expect(SessionBodySchema.safeParse({ servers: { "a/b": {} } }).success).toBe(false);
    expect(SessionBodySchema.safeParse({ servers: { "": {} } }).success).toBe(false);
    expect(SessionBodySchema.safeParse({ servers: { ["x".repeat(129)]: {} } }).success).toBe(false);
    expect(SessionBodySchema.safeParse({ roots: ["not a url"] }).success).toBe(false);
  });
});
