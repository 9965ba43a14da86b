/**
 * `mcp-edge-bridge`: loads the servers to offer (--config, plus Claude Code's with
 * --import-claude), lists them, and runs the link to the gateway until a signal stops it.
 * Logs go to stderr with a timestamp, --help to stdout. Built into
 * bridge/dist/mcp-edge-bridge.mjs by `npm run build:bridge`; started by bridge/bin/.
 */
import { readFileSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { importClaude } from "./claude-import.js";
import { installShutdownHandlers } from "./child-registry.js";
import { parseCliArgs, USAGE, type CliOptions } from "./cli-args.js";
import { loadBridgeConfig, mergeServers, type BridgeServer, type ConfigNotice } from "./config.js";
import { isLoopbackHost } from "./gateway-url.js";
import { describeLinkEvent } from "./link-events.js";
import { BridgeLink } from "./link.js";
import { redactCommandLine } from "./redact.js";

const NAME = "mcp-edge-bridge";

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** The package's version: package.json sits two levels up from both bridge/src and bridge/dist. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

async function loadServers(options: CliOptions): Promise<{ ok: true; servers: BridgeServer[]; notices: ConfigNotice[] } | { ok: false; error: string }> {
  const config = await loadBridgeConfig(options.config);
  if (!config.ok) return { ok: false, error: config.error.message };
  if (!options.importClaude) return { ok: true, servers: config.servers, notices: config.notices };
  const imported = await importClaude({ home: homedir(), projectDir: options.projectDir ?? process.cwd() });
  const merged = mergeServers(config.servers, imported.servers);
  return { ok: true, servers: merged.servers, notices: [...config.notices, ...imported.notices, ...merged.notices] };
}

async function main(argv: readonly string[]): Promise<number | undefined> {
  const parsed = parseCliArgs(argv, { env: process.env, hostname: hostname() });
  if (parsed.kind === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.kind === "error") {
    process.stderr.write(`${NAME}: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  const options = parsed.options;

  const loaded = await loadServers(options);
  if (!loaded.ok) {
    process.stderr.write(`${NAME}: ${loaded.error}\n`);
    return 1;
  }
  for (const notice of loaded.notices) log(`note: ${notice.message}`);
  if (loaded.servers.length === 0) {
    process.stderr.write(`${NAME}: no server to offer: ${options.config} defines no stdio server${options.importClaude ? " and Claude Code has none for this project" : ""}\n`);
    return 1;
  }
  for (const server of loaded.servers) log(`offering "${server.name}": ${redactCommandLine(server.command, server.args)} (from ${server.source})`);

  const link = new BridgeLink({
    gateway: options.gateway,
    bridgeId: options.id,
    token: options.token,
    servers: loaded.servers,
    clientVersion: packageVersion(),
    once: options.once,
    idleTimeoutMs: options.idleTimeoutMs,
    ...(options.denyEnv ? { denyEnv: options.denyEnv } : {}),
    onEvent: (event) => log(describeLinkEvent(event)),
  });
  if (link.url.protocol === "ws:" && !isLoopbackHost(link.url.hostname)) {
    log(`warning: ${link.url.host} is reached over plain ws://, which sends the bridge token unencrypted; use https://`);
  }
  // Ctrl-C / SIGTERM: the socket first (the gateway fails in-flight calls at once), then the children; exit 128+n.
  installShutdownHandlers({ onSignal: () => void link.stop() });

  const end = await link.run();
  if (end.kind === "stopped") return undefined; // a signal: the shutdown handler exits
  process.stderr.write(`${NAME}: ${end.message}\n`);
  // The children have ended; a socket still in its closing handshake must not keep us here.
  process.exit(1);
}

main(process.argv.slice(2)).then(
  (code) => {
    // Nothing is left running on these paths: let stdout drain and the process end by itself.
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${NAME}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
