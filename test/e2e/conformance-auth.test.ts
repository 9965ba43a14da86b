/**
 * MCP's conformance suite (client side, suite `auth`) against mcp-edge: the built Worker
 * on workerd with a real port, and test/conformance/auth-client.mjs as the suite's client
 * command (it drives mcp-edge's HTTP API: create a session, sign in through
 * POST …/auth and /oauth/callback, call `test-tool`). The suite exits non-zero on any
 * failure or warning; every scenario's checks are read back from its results.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorker, startGateway, type Gateway } from "./gateway.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The suite's 14 scenarios (conformance 0.1.x). */
const AUTH_SCENARIOS = [
  "metadata-default",
  "metadata-var1",
  "metadata-var2",
  "metadata-var3",
  "basic-cimd",
  "scope-from-www-authenticate",
  "scope-from-scopes-supported",
  "scope-omitted-when-undefined",
  "scope-step-up",
  "scope-retry-limit",
  "token-endpoint-auth-basic",
  "token-endpoint-auth-post",
  "token-endpoint-auth-none",
  "pre-registration",
];

let gateway: Gateway;

beforeAll(async () => {
  const script = await buildWorker("dist-e2e-conformance");
  gateway = await startGateway(script, { CREDENTIALS_KEY: "e2e-conformance-credentials-key-0123456789" });
});

afterAll(async () => {
  await gateway?.stop();
});

interface Check {
  id: string;
  status: string;
  description?: string;
}

describe("MCP conformance suite, client side, auth", () => {
  it("passes every scenario, without warnings", async () => {
    const out = mkdtempSync(join(tmpdir(), "mcp-edge-conformance-"));
    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [`${root}node_modules/@modelcontextprotocol/conformance/dist/index.js`, "client", "--command", `${process.execPath} ${root}test/conformance/auth-client.mjs`, "--suite", "auth", "-o", out],
        { cwd: root, env: { ...process.env, MCP_EDGE_URL: gateway.url }, timeout: 180_000, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
      );
    });
    const summary = result.output.slice(result.output.indexOf("=== SUITE SUMMARY ==="));
    expect(result.code, summary.slice(0, 3000)).toBe(0);
    const ran = readdirSync(join(out, "auth")).map((dir) => dir.replace(/-\d{4}-\d{2}-\d{2}T.*$/, ""));
    expect(ran.sort()).toEqual([...AUTH_SCENARIOS].sort());
    for (const dir of readdirSync(join(out, "auth"))) {
      const checks = JSON.parse(readFileSync(join(out, "auth", dir, "checks.json"), "utf8")) as Check[];
      const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      expect(bad, dir).toEqual([]);
    }
  }, 240_000);
});
