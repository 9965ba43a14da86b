/**
 * MCP's conformance suite in server mode against the aggregated endpoint: the built
 * Worker on workerd (real port), a session fronting the suite's own reference server
 * (test/fixtures/conformance-server.ts) unprefixed (`"prefix": false`, so its scenarios
 * find `test_simple_text` and friends), and `conformance server --url …/mcp` as its own
 * process. The scenarios that pass are pinned: each must keep passing.
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
const CONFORMANCE = `${root}node_modules/@modelcontextprotocol/conformance/dist/index.js`;

/**
 * Scenarios of @modelcontextprotocol/conformance 0.1.16 (active suite) that pass through
 * mcp-edge (the gateway with MCP_ALLOWED_HOSTS, as `npm start` runs it): all 30, as against
 * the reference server directly. The sampling and elicitation scenarios pass because the
 * session hands those upstream requests to the downstream client that declared them.
 */
export const PASSING = [
  "server-initialize",
  "logging-set-level",
  "ping",
  "completion-complete",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "server-sse-multiple-streams",
  "resources-list",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
  "dns-rebinding-protection",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
] as const;

let gateway: Gateway;
let reference: Peer;
let referenceUrl: string;
let out: string;

beforeAll(async () => {
  const port = await freePort();
  reference = new Peer({ args: [`${root}test/fixtures/conformance-server.ts`], env: { PORT: String(port) }, ports: [port] });
  referenceUrl = `http://127.0.0.1:${port}/mcp`;
  const [script] = await Promise.all([buildWorker("dist-e2e-conformance"), reference.start()]);
  gateway = await startGateway(script, { MCP_ALLOWED_HOSTS: "127.0.0.1,localhost" });
  out = mkdtempSync(join(tmpdir(), "mcp-edge-conformance-"));
});

afterAll(async () => {
  await gateway?.stop();
  await reference?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

/** Runs the suite (all active scenarios) against `url`; answers scenario → passed/failed check counts. */
async function runSuite(url: string): Promise<Map<string, { passed: number; failed: number }>> {
  const stdout = await new Promise<string>((resolve) => {
    // The suite exits non-zero when any scenario fails; the summary is what counts.
    execFile(process.execPath, [CONFORMANCE, "server", "--url", url, "-o", out], { timeout: 280_000, maxBuffer: 16 * 1024 * 1024 }, (_error, text) => resolve(text));
  });
  const results = new Map<string, { passed: number; failed: number }>();
  for (const match of stdout.matchAll(/^[✓✗] ([\w-]+): (\d+) passed, (\d+) failed/gmu)) {
    results.set(match[1]!, { passed: Number(match[2]), failed: Number(match[3]) });
  }
  return results;
}

describe("MCP conformance suite (server mode) through the aggregated endpoint", () => {
  it("passes the pinned scenarios with the reference server behind a session", async () => {
    const created = await fetch(`${gateway.url}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ servers: { conformance: { type: "remote", url: referenceUrl, prefix: false } } }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string; servers: Record<string, { status: string }> };
    expect(session.servers.conformance?.status).toBe("connected");

    const results = await runSuite(`${gateway.url}/v1/sessions/${session.id}/mcp`);
    const summary = [...results].map(([name, r]) => `${r.failed === 0 ? "pass" : "FAIL"} ${name} (${r.passed}/${r.passed + r.failed})`);
    console.log(`conformance through mcp-edge:\n${summary.join("\n")}`);
    expect(results.size, "the suite ran its scenarios").toBeGreaterThanOrEqual(PASSING.length);
    for (const scenario of PASSING) {
      const result = results.get(scenario);
      expect(result, scenario).toBeDefined();
      expect(result!.failed, `${scenario} fails now`).toBe(0);
      expect(result!.passed, scenario).toBeGreaterThan(0);
    }
  }, 300_000);
});
