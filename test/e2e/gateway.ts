/**
 * The built Worker on workerd with a real port (Miniflare's API), for end-to-end tests
 * with processes outside workerd (the bridge). Builds the bundle first.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { freePort } from "../peers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface Gateway {
  url: string;
  stop(): Promise<void>;
}

/** Bundles the Worker into `outdir` (one per test file: e2e files run in parallel). */
export async function buildWorker(outdir = "dist-e2e"): Promise<string> {
  const out = `${root}${outdir}`;
  await promisify(execFile)(`${root}node_modules/.bin/wrangler`, ["deploy", "--dry-run", "--outdir", out], { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
  return `${out}/index.js`;
}

/** The bundle's modules: index.js and the .wasm files wrangler wrote beside it that it imports. */
export function bundleModules(script: string): Array<{ type: "ESModule" | "CompiledWasm"; path: string }> {
  const source = readFileSync(script, "utf8");
  const wasm = readdirSync(dirname(script)).filter((name) => name.endsWith(".wasm") && source.includes(`"./${name}"`));
  return [{ type: "ESModule", path: script }, ...wasm.map((name) => ({ type: "CompiledWasm" as const, path: `${dirname(script)}/${name}` }))];
}

export interface GatewayOptions {
  /** Bind a Worker Loader as LOADER (code mode's dynamic isolates). */
  workerLoader?: boolean;
}

export async function startGateway(script: string, bindings: Record<string, string>, options: GatewayOptions = {}): Promise<Gateway> {
  const port = await freePort();
  const mf = new Miniflare(convertV4MiniflareOptions({
    host: "127.0.0.1",
    port,
    // index.js and the .wasm it imports (code mode's QuickJS); `modules: true` would load index.js alone.
    modules: bundleModules(script),
    modulesRoot: dirname(script),
    compatibilityDate: "2026-11-01",
    compatibilityFlags: ["nodejs_compat", "enable_request_signal"],
    durableObjects: { SESSIONS: { className: "SessionObject", useSQLite: true }, BRIDGES: { className: "BridgeHub", useSQLite: true }, CREDENTIALS: { className: "CredentialVault", useSQLite: true } },
    kvNamespaces: ["CATALOG", "OAUTH_KV"],
    // The web console's files, as wrangler.toml's [assets] serves them (the dry-run bundle leaves them out).
    assets: { directory: `${root}console`, binding: "ASSETS", routerConfig: { has_user_worker: true }, run_worker_first: ["/"] },
    // As `npm start`: local-dev auth and a fixed credentials key (OAuth sign-ins work out of the box).
    bindings: { ALLOW_PRIVATE_URLS: "true", AUTH_MODE: "local-dev", CREDENTIALS_KEY: "e2e-credentials-key-not-a-secret-0123456789", MCP_SERVERS: "{}", ...bindings },
    ...(options.workerLoader ? { workerLoaders: { LOADER: {} } } : {}),
  }));
  const url = await mf.ready;
  return { url: url.origin, stop: () => mf.dispose() };
}
