/**
 * The built Worker on workerd with a real port (Miniflare's API), for end-to-end tests
 * with processes outside workerd (the bridge). Builds the bundle first.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { freePort } from "../peers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const OUT = `${root}dist-e2e`;

export interface Gateway {
  url: string;
  stop(): Promise<void>;
}

export async function buildWorker(): Promise<string> {
  await promisify(execFile)(`${root}node_modules/.bin/wrangler`, ["deploy", "--dry-run", "--outdir", OUT], { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
  return `${OUT}/index.js`;
}

export async function startGateway(script: string, bindings: Record<string, string>): Promise<Gateway> {
  const port = await freePort();
  const mf = new Miniflare(convertV4MiniflareOptions({
    host: "127.0.0.1",
    port,
    modules: true,
    scriptPath: script,
    modulesRoot: OUT,
    compatibilityDate: "2026-11-01",
    compatibilityFlags: ["nodejs_compat", "enable_request_signal"],
    durableObjects: { SESSIONS: { className: "SessionObject", useSQLite: true }, BRIDGES: { className: "BridgeHub", useSQLite: true } },
    kvNamespaces: ["CATALOG"],
    bindings: { ALLOW_PRIVATE_URLS: "true", MCP_SERVERS: "{}", ...bindings },
  }));
  const url = await mf.ready;
  return { url: url.origin, stop: () => mf.dispose() };
}
