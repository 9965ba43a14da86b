/**
 * `mcp-edge-bridge` as users run it: the built bundle behind the committed launcher
 * (bridge/bin → bridge/dist), under the system's Node 20 when there is one. Argument
 * parsing and gateway URLs are also checked as pure functions.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE_TOKEN_VAR } from "../../bridge/src/child-env.js";
import { parseCliArgs, sanitizeBridgeId, USAGE } from "../../bridge/src/cli-args.js";
import { gatewayConnectUrl, isLoopbackHost } from "../../bridge/src/gateway-url.js";
import { REFUSAL_MESSAGE, startGatewayStub, STUB_TOKEN, type FrameOf } from "./gateway-stub.js";
import { fixture, isAlive, NODE, ROOT, waitUntil, within } from "./helpers.js";

const LAUNCHER = path.join(ROOT, "bridge/bin/mcp-edge-bridge.mjs");
const BUNDLE = path.join(ROOT, "bridge/dist/mcp-edge-bridge.mjs");

/** The oldest Node the package supports (engines: >=20), if the machine has it; else the test runner's. */
function findNode20(): string {
  for (const candidate of ["/usr/local/bin/node", "/usr/bin/node", "/bin/node"]) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout.trim();
    if (version.startsWith("v20.")) return candidate;
  }
  return NODE;
}
const CLI_NODE = findNode20();

/** `npm install` builds the bundle ("prepare"); rebuild only when it is missing or older than a source file. */
function bundleIsStale(): boolean {
  if (!existsSync(BUNDLE)) return true;
  const built = statSync(BUNDLE).mtimeMs;
  const dirs = [path.join(ROOT, "bridge/src"), path.join(ROOT, "src/core")];
  return dirs.some((dir) => readdirSync(dir, { recursive: true, encoding: "utf8" }).some((f) => f.endsWith(".ts") && statSync(path.join(dir, f)).mtimeMs > built));
}

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== BRIDGE_TOKEN_VAR) env[k] = v;
  return { ...env, ...extra };
}

function startCli(args: string[], env: Record<string, string> = cleanEnv()) {
  const child = spawn(CLI_NODE, [LAUNCHER, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const ended = new Promise<CliRun>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, ended: (timeoutMs = 20_000) => within(ended, timeoutMs, `mcp-edge-bridge ${args.join(" ")} to exit`), stderr: () => stderr };
}

function runCli(args: string[], env?: Record<string, string>): Promise<CliRun> {
  return startCli(args, env).ended();
}

let dir: string;
beforeAll(async () => {
  if (bundleIsStale()) {
    const build = spawnSync("npm", ["run", "--silent", "build:bridge"], { cwd: ROOT, encoding: "utf8" });
    expect(build.status, build.stderr).toBe(0);
  }
  dir = await mkdtemp(path.join(tmpdir(), "bridge-cli-"));
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configFile(name: string, content: unknown): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("packaging", () => {
  it("package.json points bin at the committed launcher, builds the bundle on install, and ships ws as a dependency", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(pkg.bin).toEqual({ "mcp-edge-bridge": "bridge/bin/mcp-edge-bridge.mjs" });
    expect(pkg.scripts!.prepare).toMatch(/^npm run build:bridge( && |$)/);
    expect(pkg.scripts!["build:bridge"]).toContain("--outfile=bridge/dist/mcp-edge-bridge.mjs");
    expect(pkg.dependencies!.ws).toBeDefined();
    expect(readFileSync(LAUNCHER, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(LAUNCHER).mode & 0o111).not.toBe(0);
  });
});

describe("mcp-edge-bridge (built, on the system's Node)", () => {
  it(`--help prints the usage and exits 0 (node ${spawnSync(CLI_NODE, ["--version"], { encoding: "utf8" }).stdout.trim()})`, async () => {
    const run = await runCli(["--help"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toBe(USAGE);
  });

  it("missing, unknown or bad arguments print the usage and exit 2", async () => {
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`mcp-edge-bridge: --gateway URL is required\n\n${USAGE}`);

    const unknown = await runCli(["--gateway", "https://gw.example", "--config", "x.json", "--bogus"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^mcp-edge-bridge: .*--bogus/);
    expect(unknown.stderr).toContain("Usage: mcp-edge-bridge");

    const idle = await runCli(["--gateway", "https://gw.example", "--config", "x.json", "--token", "t", "--idle-timeout", "soon"]);
    expect(idle.code).toBe(2);
    expect(idle.stderr).toContain("--idle-timeout must be a whole number of milliseconds");

    const noToken = await runCli(["--gateway", "https://gw.example", "--config", "x.json"]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain(`no bridge token: set ${BRIDGE_TOKEN_VAR} or pass --token`);
  });

  it("an invalid config, or one without a stdio server, exits 1 with a clear message", async () => {
    const bad = await configFile("bad.json", { mcpServers: { broken: { command: "node", argz: [] } } });
    const invalid = await runCli(["--gateway", "https://gw.example", "--config", bad, "--token", "t"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^mcp-edge-bridge: .*broken.*argz/);

    const remoteOnly = await configFile("remote.json", { mcpServers: { web: { type: "http", url: "https://mcp.example/mcp" } } });
    const empty = await runCli(["--gateway", "https://gw.example", "--config", remoteOnly, "--token", "t"]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(`note: server "web" is not a stdio server`);
    expect(empty.stderr).toContain(`mcp-edge-bridge: no server to offer: ${remoteOnly} defines no stdio server`);
  });

  it("--once with a refused token exits 1 naming the problem; offered servers are listed redacted", async () => {
    const stub = await startGatewayStub();
    try {
      const config = await configFile("once.json", { mcpServers: { svc: { command: NODE, args: ["server.js", "--api-key", "sk-live-0123456789abcdefABCDEF"] } } });
      const run = await runCli(["--gateway", stub.url, "--config", config, "--id", "cli-test", "--once"], cleanEnv({ [BRIDGE_TOKEN_VAR]: "wrong-token" }));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`offering "svc": ${NODE} server.js --api-key [REDACTED] (from ${config})`);
      expect(run.stderr).not.toContain("sk-live");
      expect(run.stderr).not.toContain("wrong-token");
      expect(run.stderr).toContain(`mcp-edge-bridge: the gateway refused the bridge token (HTTP 401: ${REFUSAL_MESSAGE})`);
      expect(stub.upgrades).toBe(1);
    } finally {
      await stub.close();
    }
  });

  it("serves channels until Ctrl-C, then closes the socket and ends every server process group, exiting 130", async () => {
    const stub = await startGatewayStub();
    const config = await configFile("serve.json", { mcpServers: { family: { command: NODE, args: [fixture("spawn-grandchild.mjs")] } } });
    const cli = startCli(["--gateway", stub.url, "--config", config, "--id", "cli-test"], cleanEnv({ [BRIDGE_TOKEN_VAR]: STUB_TOKEN }));
    try {
      const conn = await stub.connection(0);
      const hello = await conn.hello();
      expect(hello).toMatchObject({ bridge: "cli-test", servers: [{ name: "family" }], client: { name: "mcp-edge-bridge", version: expect.any(String) } });
      await waitUntil(() => cli.stderr().includes("connected as bridge"), "the connected line");
      conn.send({ type: "open", channel: "s/family", server: "family" });
      await conn.frame("opened", "s/family");
      const report = await conn.frames.waitFor((f) => f.type === "message" && f.channel === "s/family", "the pids report");
      const pids = (report as FrameOf<"message">).message.params as { server: number; grandchild: number };
      expect(isAlive(pids.server) && isAlive(pids.grandchild)).toBe(true);

      cli.child.kill("SIGINT");
      const run = await cli.ended();
      expect(run.code).toBe(130);
      expect((await within(conn.closed, 5_000, "the socket to close")).code).toBe(1001);
      expect(isAlive(pids.server)).toBe(false);
      await waitUntil(() => !isAlive(pids.grandchild), "the grandchild to end");
      expect(run.stderr).toMatch(/connecting to ws:\/\/127\.0\.0\.1:\d+\/v1\/bridges\/connect\n/);
      expect(run.stderr).toMatch(/\[s\/family\] started "family" \(pid \d+\)/);
    } finally {
      cli.child.kill("SIGKILL");
      await stub.close();
    }
  });
});

describe("parseCliArgs", () => {
  const defaults = { env: { [BRIDGE_TOKEN_VAR]: "env-token" }, hostname: "Dev Laptop.local" };

  it("fills the id from the hostname and the token from the environment", () => {
    expect(parseCliArgs(["--gateway", "https://gw.example", "--config", "c.json"], defaults)).toEqual({
      kind: "run",
      options: { gateway: "https://gw.example", config: "c.json", id: "Dev-Laptop-local", token: "env-token", importClaude: false, projectDir: undefined, idleTimeoutMs: 900_000, denyEnv: undefined, once: false },
    });
  });

  it("takes every option", () => {
    const parsed = parseCliArgs(
      ["--gateway", "http://localhost:8787", "--config", "c.json", "--id", "box_1", "--token", "flag-token", "--import-claude", "--project-dir", "/p", "--idle-timeout", "0", "--deny-env", "CORP_*", "--deny-env", "*_PAT", "--once"],
      defaults,
    );
    expect(parsed).toEqual({
      kind: "run",
      options: { gateway: "http://localhost:8787", config: "c.json", id: "box_1", token: "flag-token", importClaude: true, projectDir: "/p", idleTimeoutMs: 0, denyEnv: ["CORP_*", "*_PAT"], once: true },
    });
    expect(parseCliArgs(["-h"], defaults)).toEqual({ kind: "help" });
  });

  it.each([
    [["--config", "c.json"], "--gateway URL is required"],
    [["--gateway", "https://g"], "--config FILE is required"],
    [["--gateway", "ftp://g", "--config", "c"], "--gateway must be an http(s) or ws(s) URL"],
    [["--gateway", "https://user:pw@g", "--config", "c"], "--gateway must not carry credentials"],
    [["--gateway", "https://g", "--config", "c", "--id", "a.b"], "--id must be 1-64 characters"],
    [["--gateway", "https://g", "--config", "c", "--project-dir", "/p"], "--project-dir only applies with --import-claude"],
    [["--gateway", "https://g", "--config", "c", "--idle-timeout", "1.5"], "--idle-timeout must be a whole number"],
    [["--gateway", "https://g", "--config", "c", "--deny-env", "A B"], "--deny-env patterns are environment variable names"],
    [["--gateway", "https://g", "--config", "c", "stray"], "positional"],
    [["--gateway", "https://g", "--config", "c", "--token", "tok\n"], "the bridge token contains a space or control character"],
  ])("%j is a usage error", (argv, message) => {
    const parsed = parseCliArgs(argv, defaults);
    expect(parsed.kind).toBe("error");
    expect((parsed as { error: string }).error).toContain(message);
  });

  it("sanitizes hostnames into bridge ids", () => {
    expect(sanitizeBridgeId("my.host.example")).toBe("my-host-example");
    expect(sanitizeBridgeId("ünïcode")).toBe("n-code");
    expect(sanitizeBridgeId("...")).toBe("bridge");
    expect(sanitizeBridgeId("x".repeat(100))).toHaveLength(64);
  });
});

describe("gatewayConnectUrl", () => {
  it.each([
    ["https://gw.example", "wss://gw.example/v1/bridges/connect?bridge=b1"],
    ["http://127.0.0.1:8787/", "ws://127.0.0.1:8787/v1/bridges/connect?bridge=b1"],
    ["https://gw.example/mcp-edge/", "wss://gw.example/mcp-edge/v1/bridges/connect?bridge=b1"],
    ["wss://gw.example?x=1#f", "wss://gw.example/v1/bridges/connect?bridge=b1"],
  ])("%s → %s", (gateway, expected) => {
    const url = gatewayConnectUrl(gateway, "b1");
    expect(url.ok && url.url.href).toBe(expected);
  });

  it("knows loopback hosts", () => {
    expect(["localhost", "127.0.0.1", "[::1]", "a.localhost"].every(isLoopbackHost)).toBe(true);
    expect(["gw.example", "10.0.0.1", "localhost.example"].some(isLoopbackHost)).toBe(false);
  });
});
