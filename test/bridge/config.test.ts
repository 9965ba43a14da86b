/**
 * Config in both formats people already have (Claude-style mcpServers, opencode-style mcp),
 * normalized to BridgeServer; skipped and disabled entries as notices; unknown keys named;
 * and --import-claude from a temporary HOME and project directory.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpEdgeError } from "../../src/core/errors.js";
import { importClaude } from "../../bridge/src/claude-import.js";
import { loadBridgeConfig, mergeServers, parseBridgeConfig, type BridgeServer, type ConfigResult } from "../../bridge/src/config.js";

const env = { HOME_DIR: "/home/dev", API_KEY: "k-123" };

function ok(result: ConfigResult): Extract<ConfigResult, { ok: true }> {
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.error.message}`);
  return result;
}

function failed(result: ConfigResult): McpEdgeError {
  if (result.ok) throw new Error("expected the config to be rejected");
  return result.error;
}

describe("parseBridgeConfig: Claude style", () => {
  it("normalizes a stdio entry", () => {
    const result = ok(
      parseBridgeConfig(
        { mcpServers: { fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { A: "1" }, cwd: "/srv" } } },
        { source: "bridge.json", env },
      ),
    );
    expect(result.servers).toEqual([
      { name: "fs", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { A: "1" }, cwd: "/srv", source: "bridge.json" },
    ]);
    expect(result.notices).toEqual([]);
  });

  it("accepts an explicit type stdio and defaults args and env", () => {
    const [server] = ok(parseBridgeConfig({ mcpServers: { s: { type: "stdio", command: "srv" } } }, { source: "c", env })).servers;
    expect(server).toEqual({ name: "s", command: "srv", args: [], env: {}, source: "c" });
  });

  it("skips http, sse and url entries with a notice", () => {
    const result = ok(
      parseBridgeConfig(
        {
          mcpServers: {
            web: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } },
            events: { type: "sse", url: "https://example.com/sse" },
            bare: { url: "https://example.com/mcp" },
            local: { command: "srv" },
          },
        },
        { source: "c", env },
      ),
    );
    expect(result.servers.map((s) => s.name)).toEqual(["local"]);
    expect(result.notices.map((n) => [n.kind, n.server])).toEqual([
      ["skipped", "web"],
      ["skipped", "events"],
      ["skipped", "bare"],
    ]);
    expect(result.notices[0]!.message).toMatch(/not a stdio server/);
  });

  it("expands ${VAR} and ${VAR:-default}, and skips an entry whose variable is unset", () => {
    const result = ok(
      parseBridgeConfig(
        {
          mcpServers: {
            a: { command: "srv", args: ["${HOME_DIR}/data", "${MISSING:-fallback}"], env: { API_KEY: "${API_KEY}" } },
            b: { command: "srv", env: { TOKEN: "${NOT_SET}" } },
          },
        },
        { source: "c", env },
      ),
    );
    expect(result.servers).toEqual([{ name: "a", command: "srv", args: ["/home/dev/data", "fallback"], env: { API_KEY: "k-123" }, source: "c" }]);
    expect(result.notices).toEqual([expect.objectContaining({ kind: "skipped", server: "b", message: expect.stringContaining("NOT_SET") })]);
  });
});

describe("parseBridgeConfig: opencode style", () => {
  it("normalizes a local entry: argv split, environment, cwd, timeout", () => {
    const result = ok(
      parseBridgeConfig(
        { $schema: "https://opencode.ai/config.json", mcp: { mem: { type: "local", command: ["npx", "-y", "server-memory"], environment: { KEY: "{env:API_KEY}" }, cwd: "/w", timeout: 5000 } } },
        { source: "opencode.json", env },
      ),
    );
    expect(result.servers).toEqual([
      { name: "mem", command: "npx", args: ["-y", "server-memory"], env: { KEY: "k-123" }, cwd: "/w", source: "opencode.json", timeoutMs: 5000 },
    ]);
  });

  it("skips remote entries and disabled ones with notices", () => {
    const result = ok(
      parseBridgeConfig(
        {
          mcp: {
            remote: { type: "remote", url: "https://example.com/mcp", oauth: false },
            off: { type: "local", command: ["srv"], enabled: false },
            on: { type: "local", command: ["srv"], enabled: true },
          },
        },
        { source: "c", env },
      ),
    );
    expect(result.servers.map((s) => s.name)).toEqual(["on"]);
    expect(result.notices.map((n) => [n.kind, n.server])).toEqual([
      ["skipped", "remote"],
      ["disabled", "off"],
    ]);
  });

  it("accepts both blocks in one file", () => {
    const result = ok(parseBridgeConfig({ mcpServers: { a: { command: "x" } }, mcp: { b: { type: "local", command: ["y"] } } }, { source: "c", env }));
    expect(result.servers.map((s) => s.name)).toEqual(["a", "b"]);
  });
});

describe("parseBridgeConfig: errors", () => {
  it("names unknown keys in an entry", () => {
    const error = failed(parseBridgeConfig({ mcpServers: { fs: { command: "x", argz: [], enviroment: {} } } }, { source: "bridge.json", env }));
    expect(error.code).toBe("unknownKeys");
    expect(error.message).toContain('server "fs" (bridge.json)');
    expect(error.message).toContain("argz");
    expect(error.message).toContain("enviroment");
  });

  it("names unknown keys in an opencode entry (Claude's field names are not opencode's)", () => {
    const error = failed(parseBridgeConfig({ mcp: { fs: { type: "local", command: ["x"], env: {} } } }, { source: "c", env }));
    expect(error.code).toBe("unknownKeys");
    expect(error.message).toContain("env");
  });

  it("names unknown top-level keys", () => {
    const error = failed(parseBridgeConfig({ mcpServers: {}, servers: {} }, { source: "c", env }));
    expect(error.code).toBe("unknownKeys");
    expect(error.message).toContain("servers");
  });

  it("rejects a config with neither block, a bad type, a bad shape and a duplicated name", () => {
    expect(failed(parseBridgeConfig({}, { source: "c", env })).message).toMatch(/mcpServers.*mcp/);
    expect(failed(parseBridgeConfig({ mcpServers: { a: { type: "websocket", command: "x" } } }, { source: "c", env })).message).toMatch(/type must be "stdio"/);
    expect(failed(parseBridgeConfig({ mcp: { a: { command: ["x"] } } }, { source: "c", env })).message).toMatch(/type must be "local"/);
    expect(failed(parseBridgeConfig({ mcpServers: { a: { command: ["x"] } } }, { source: "c", env })).code).toBe("invalidConfig");
    expect(failed(parseBridgeConfig({ mcp: { a: { type: "local", command: [] } } }, { source: "c", env })).code).toBe("invalidConfig");
    expect(failed(parseBridgeConfig({ mcpServers: { "a/b": { command: "x" } } }, { source: "c", env })).code).toBe("invalidConfig");
    expect(failed(parseBridgeConfig({ mcpServers: { a: { command: "x" } }, mcp: { a: { type: "local", command: ["x"] } } }, { source: "c", env })).message).toMatch(
      /"a" defined in both/,
    );
  });
});

describe("files", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "bridge-config-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("loadBridgeConfig reads a file and reports missing or malformed files as errors", async () => {
    const file = path.join(dir, "bridge.json");
    await writeFile(file, JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    expect(ok(await loadBridgeConfig(file, { env })).servers[0]).toMatchObject({ name: "a", source: file });

    expect(failed(await loadBridgeConfig(path.join(dir, "nope.json"))).message).toMatch(/does not exist/);
    await writeFile(file, "{ not json");
    expect(failed(await loadBridgeConfig(file)).message).toMatch(/not valid JSON/);
  });

  it("importClaude reads user, project and local scopes with Claude's precedence, stdio only", async () => {
    const home = path.join(dir, "home");
    const project = path.join(dir, "project");
    await mkdir(home);
    await mkdir(project);
    await writeFile(
      path.join(home, ".claude.json"),
      JSON.stringify({
        numStartups: 12, // Claude's own bookkeeping: ignored
        mcpServers: {
          userOnly: { type: "stdio", command: "user-srv" },
          shared: { command: "from-user" },
          remoteOne: { type: "http", url: "https://example.com/mcp" },
        },
        projects: {
          [project]: { allowedTools: [], mcpServers: { localOnly: { command: "local-srv", env: { K: "${API_KEY}" } }, shared: { command: "from-local" } } },
          "/some/other/project": { mcpServers: { elsewhere: { command: "no" } } },
        },
      }),
    );
    await writeFile(
      path.join(project, ".mcp.json"),
      JSON.stringify({ mcpServers: { projectOnly: { command: "project-srv", args: ["--x"] }, shared: { command: "from-project" }, broken: { command: "x", bogus: 1 } } }),
    );

    const { servers, notices } = await importClaude({ home, projectDir: project, env });
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(["localOnly", "projectOnly", "shared", "userOnly"]);
    expect(byName.shared!.command).toBe("from-local");
    expect(byName.localOnly!.env).toEqual({ K: "k-123" });
    expect(byName.localOnly!.source).toMatch(/\.claude\.json \(local scope/);
    expect(byName.projectOnly!.source).toBe(`${path.join(project, ".mcp.json")} (project scope)`);
    expect(byName.userOnly!.source).toMatch(/\.claude\.json \(user scope\)/);

    const kinds = (kind: string): string[] => notices.filter((n) => n.kind === kind).map((n) => n.server).sort();
    expect(kinds("imported")).toEqual(["localOnly", "projectOnly", "shared", "userOnly"]);
    expect(kinds("clash")).toEqual(["shared", "shared"]);
    expect(kinds("skipped")).toEqual(["remoteOne"]);
    expect(kinds("invalid")).toEqual(["broken"]);
    expect(notices.find((n) => n.server === "broken")!.message).toContain("bogus");
  });

  it("importClaude finds nothing when the files are absent, and reports malformed ones", async () => {
    expect(await importClaude({ home: dir, projectDir: dir, env })).toEqual({ servers: [], notices: [] });
    await writeFile(path.join(dir, ".claude.json"), "{");
    const { servers, notices } = await importClaude({ home: dir, projectDir: dir, env });
    expect(servers).toEqual([]);
    expect(notices).toEqual([expect.objectContaining({ kind: "invalid", message: expect.stringMatching(/not valid JSON/) })]);
  });
});

describe("mergeServers", () => {
  const server = (name: string, source: string): BridgeServer => ({ name, command: "x", args: [], env: {}, source });

  it("keeps the explicit server on a clash and reports it", () => {
    const { servers, notices } = mergeServers([server("a", "bridge.json")], [server("a", "~/.claude.json"), server("b", ".mcp.json")]);
    expect(servers.map((s) => [s.name, s.source])).toEqual([
      ["a", "bridge.json"],
      ["b", ".mcp.json"],
    ]);
    expect(notices).toEqual([expect.objectContaining({ kind: "clash", server: "a", source: "~/.claude.json", message: expect.stringContaining("bridge.json defines it") })]);
  });
});

it("config errors are core's typed errors", () => {
  expect(McpEdgeError.is(failed(parseBridgeConfig({ nope: 1 }, { source: "c", env })))).toBe(true);
});
