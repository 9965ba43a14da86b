/**
 * The MCP Inspector's CLI (`mcp-inspector --cli`, v2) against the aggregated endpoint:
 * the built Worker on a real port, a session fronting a real server-everything, and the
 * Inspector as its own process speaking Streamable HTTP to `/v1/sessions/:id/mcp`.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, Peer } from "../peers.js";
import { buildWorker, startGateway, type Gateway } from "./gateway.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const INSPECTOR = `${root}node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js`;
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

let gateway: Gateway;
let everything: Peer;
let endpoint: string;
let home: string;

/** Runs one Inspector CLI call and parses its JSON answer. */
function inspector(args: string[]): Promise<{ code: number; json: unknown; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [INSPECTOR, "--cli", endpoint, "--transport", "http", ...args],
      // Its catalog file goes to a temporary home, never the user's.
      { timeout: 60_000, env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json") } },
      (error, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = stdout;
        }
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, json, stderr });
      },
    );
  });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "mcp-edge-inspector-"));
  const port = await freePort();
  everything = new Peer({ args: [EVERYTHING, "streamableHttp"], env: { PORT: String(port) }, ports: [port] });
  const [script] = await Promise.all([buildWorker(), everything.start()]);
  gateway = await startGateway(script, {});
  const created = await fetch(`${gateway.url}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ servers: { everything: { type: "remote", url: `http://127.0.0.1:${port}/mcp` } } }),
  });
  const session = (await created.json()) as { id: string };
  endpoint = `${gateway.url}/v1/sessions/${session.id}/mcp`;
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await everything?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("the MCP Inspector CLI against the aggregated endpoint", () => {
  it("tools/list shows the session's tools with their namespaced names", async () => {
    const out = await inspector(["--method", "tools/list"]);
    expect(out.code, out.stderr).toBe(0);
    const names = (out.json as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toContain("everything_echo");
    expect(names).toContain("everything_get-sum");
  });

  it("tools/call runs a tool through the session", async () => {
    const out = await inspector(["--method", "tools/call", "--tool-name", "everything_get-sum", "--tool-arg", "a=2", "b=3"]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.stringify(out.json)).toContain("The sum of 2 and 3 is 5.");
  });

  it("resources/list and prompts/list answer from the session's servers", async () => {
    const resources = await inspector(["--method", "resources/list"]);
    expect(resources.code, resources.stderr).toBe(0);
    expect((resources.json as { resources: unknown[] }).resources.length).toBeGreaterThan(0);
    const prompts = await inspector(["--method", "prompts/list"]);
    expect(prompts.code, prompts.stderr).toBe(0);
    const promptNames = (prompts.json as { prompts: Array<{ name: string }> }).prompts.map((p) => p.name);
    expect(promptNames.some((n) => n.startsWith("everything_"))).toBe(true);
  });

  it("an unknown tool is an error, not a crash", async () => {
    const out = await inspector(["--method", "tools/call", "--tool-name", "everything_no-such-tool"]);
    expect(`${JSON.stringify(out.json)} ${out.stderr}`).toMatch(/no-such-tool|unknown|not found|-32602/i);
  });
});
