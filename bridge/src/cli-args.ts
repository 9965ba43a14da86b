/**
 * The command line of `mcp-edge-bridge`, parsed into options or a usage error (a value,
 * never a throw): node:util parseArgs in strict mode, then each value checked. Pure apart
 * from the defaults it is handed (environment, hostname), so tests need no process.
 */
import { parseArgs } from "node:util";
import { DEFAULT_IDLE_TIMEOUT_MS } from "./channel.js";
import { BRIDGE_TOKEN_VAR } from "./child-env.js";
import { gatewayConnectUrl } from "./gateway-url.js";

export const BRIDGE_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** setTimeout's ceiling (about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const USAGE = `Usage: mcp-edge-bridge --gateway URL --config FILE [options]

Runs the stdio MCP servers named in FILE on this machine and offers them to an
mcp-edge gateway over one outbound WebSocket. The gateway can start only the
servers FILE names, never a command of its own.

Options:
  --gateway URL       the mcp-edge gateway, e.g. https://mcp-edge.example.workers.dev
  --config FILE       the servers to offer: Claude-style {"mcpServers": {...}}
                      or opencode-style {"mcp": {...}} (stdio/local entries only)
  --id NAME           this bridge's name at the gateway: [a-zA-Z0-9_-], at most
                      64 characters (default: this machine's hostname)
  --token TOKEN       the bridge token (default: $${BRIDGE_TOKEN_VAR}; prefer the
                      variable: other users can read a process's arguments)
  --import-claude     also offer Claude Code's stdio servers (~/.claude.json and
                      <project>/.mcp.json); FILE wins on a name clash
  --project-dir DIR   the project for --import-claude (default: the current directory)
  --idle-timeout MS   end a server after MS milliseconds without a message either
                      way (default: ${DEFAULT_IDLE_TIMEOUT_MS}, 15 minutes; 0: never)
  --deny-env PATTERN  drop inherited environment variables matching PATTERN (a
                      case-insensitive glob; repeatable) from every server's env,
                      unless its config sets them; replaces the default list
                      *_TOKEN *_SECRET *_KEY *PASSWORD*
  --once              do not reconnect: exit with status 1 when the token is
                      refused or the connection fails or drops
  -h, --help          show this help

Exit status: 0 after --help; 1 on a bad config, a gateway speaking another
protocol version, another bridge taking this id, or (with --once) a refused,
failed or lost connection; 2 on bad arguments; 128+N after signal N (Ctrl-C: 130).
`;

export interface CliOptions {
  gateway: string;
  config: string;
  id: string;
  token: string;
  importClaude: boolean;
  projectDir: string | undefined;
  idleTimeoutMs: number;
  /** Patterns of inherited variables kept from children; undefined: the default list. */
  denyEnv: string[] | undefined;
  once: boolean;
}

export type CliParse = { kind: "run"; options: CliOptions } | { kind: "help" } | { kind: "error"; error: string };

/** A hostname as a bridge id: other characters become "-", at most 64, never empty. */
export function sanitizeBridgeId(name: string): string {
  const id = name
    .replace(/[^a-zA-Z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return id === "" ? "bridge" : id;
}

export interface CliDefaults {
  env: Readonly<Record<string, string | undefined>>;
  hostname: string;
}

export function parseCliArgs(argv: readonly string[], defaults: CliDefaults): CliParse {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        gateway: { type: "string" },
        config: { type: "string" },
        id: { type: "string" },
        token: { type: "string" },
        "import-claude": { type: "boolean" },
        "project-dir": { type: "string" },
        "idle-timeout": { type: "string" },
        "deny-env": { type: "string", multiple: true },
        once: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return { kind: "error", error: error instanceof Error ? error.message : String(error) };
  }
  if (values.help) return { kind: "help" };

  if (!values.gateway) return { kind: "error", error: "--gateway URL is required" };
  if (!values.config) return { kind: "error", error: "--config FILE is required" };
  const id = values.id ?? sanitizeBridgeId(defaults.hostname);
  if (!BRIDGE_ID_PATTERN.test(id)) return { kind: "error", error: `--id must be 1-64 characters of [a-zA-Z0-9_-], got ${JSON.stringify(id)}` };
  const url = gatewayConnectUrl(values.gateway, id);
  if (!url.ok) return { kind: "error", error: url.error };
  const token = values.token ?? defaults.env[BRIDGE_TOKEN_VAR] ?? "";
  if (token === "") return { kind: "error", error: `no bridge token: set ${BRIDGE_TOKEN_VAR} or pass --token` };
  if (/[\u0000-\u0020\u007f]/.test(token)) return { kind: "error", error: "the bridge token contains a space or control character (a trailing newline?)" };
  if (values["project-dir"] !== undefined && !values["import-claude"]) return { kind: "error", error: "--project-dir only applies with --import-claude" };
  let idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  const idle = values["idle-timeout"];
  if (idle !== undefined) {
    if (!/^\d+$/.test(idle) || Number(idle) > MAX_TIMEOUT_MS) {
      return { kind: "error", error: `--idle-timeout must be a whole number of milliseconds up to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(idle)}` };
    }
    idleTimeoutMs = Number(idle);
  }
  const denyEnv = values["deny-env"];
  if (denyEnv?.some((pattern) => !/^[A-Za-z0-9_*?]+$/.test(pattern))) {
    return { kind: "error", error: "--deny-env patterns are environment variable names with * and ? wildcards" };
  }
  return {
    kind: "run",
    options: {
      gateway: values.gateway,
      config: values.config,
      id,
      token,
      importClaude: values["import-claude"] ?? false,
      projectDir: values["project-dir"],
      idleTimeoutMs,
      denyEnv,
      once: values.once ?? false,
    },
  };
}
