/**
 * Code mode in a Worker Loader isolate: each run gets a fresh dynamic Worker with no
 * outbound network (`globalOutbound: null`), no bindings and no secrets. The script's
 * tool calls come back over RPC to a {@link ScriptHostTarget} passed as an argument (an
 * RpcTarget cannot live in a loaded Worker's env). Logs are kept inside the isolate and
 * travel with each tool call and with the final answer.
 *
 * Limits: wall time here; CPU through the loader's `limits.cpuMs` (enforced by the
 * platform: local workerd does not enforce it, see the README); memory is the isolate's.
 */
import { RpcTarget } from "cloudflare:workers";
import { timeoutMessage, type ScriptHost } from "../src/core/codemode/host.js";
import { PRELUDE, wrapScript } from "../src/core/codemode/prelude.js";
import type { ExecResult } from "../src/core/codemode/types.js";
import { messageOf } from "../src/core/errors.js";

/** The loaded Worker's compatibility date: pinned, so a script sees the same runtime on every deploy. */
const SANDBOX_COMPATIBILITY_DATE = "2026-11-01";

/** What the sandbox's `run` receives from the host: only logs and tool calls, as strings. */
class ScriptHostTarget extends RpcTarget {
  constructor(private readonly host: ScriptHost) {
    super();
  }

  logs(lines: string[]): void {
    if (!Array.isArray(lines)) return;
    for (const line of lines) this.host.log(String(line));
  }

  async call(name: string, argsJson: string, lines: string[]): Promise<string> {
    this.logs(lines);
    return this.host.call(String(name), String(argsJson));
  }
}

const MAIN_MODULE = `${PRELUDE}
import { WorkerEntrypoint } from "cloudflare:workers";

export default class extends WorkerEntrypoint {
  async run(host, directoryJson, maxLogChars) {
    let pending = [];
    const take = () => pending.splice(0);
    const bridge = { call: (name, argsJson) => host.call(name, argsJson, take()), log: (line) => pending.push(line) };
    const globals = __createScriptGlobals(bridge, JSON.parse(directoryJson), maxLogChars);
    globalThis.console = globals.console;
    let script;
    try {
      script = (await import("./script.js")).default;
    } catch (error) {
      const message = error instanceof Error ? (error.name && error.name !== "Error" ? error.name + ": " + error.message : error.message) : String(error);
      return { answer: JSON.stringify({ ok: false, error: { message } }), logs: take() };
    }
    const answer = await __runScript(script, globals);
    return { answer, logs: take() };
  }
}
`;

export interface LoaderRunOptions {
  /** CPU budget handed to the loader (the platform enforces it). */
  cpuMs: number;
}

export async function runInLoader(loader: WorkerLoader, code: string, host: ScriptHost, options: LoaderRunOptions): Promise<ExecResult> {
  if (host.signal.aborted) return host.fail({ kind: "aborted", message: "the run was cancelled" });
  let timer: number | undefined;
  const stopped = new Promise<"timeout" | "aborted">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), host.limits.timeoutMs);
    host.signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  try {
    const worker = loader.get(`codemode-${crypto.randomUUID()}`, () => ({
      compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
      mainModule: "main.js",
      modules: { "main.js": MAIN_MODULE, "script.js": `export default ${wrapScript(code)};\n` },
      env: {},
      globalOutbound: null,
      limits: { cpuMs: options.cpuMs },
    }));
    const entrypoint = worker.getEntrypoint() as unknown as SandboxEntrypoint;
    const target = new ScriptHostTarget(host);
    const outcome = await Promise.race([entrypoint.run(target, JSON.stringify(host.directory), host.limits.maxOutputBytes), stopped]);
    if (outcome === "timeout") return host.fail({ kind: "timeout", message: timeoutMessage(host.limits.timeoutMs) });
    if (outcome === "aborted") return host.fail({ kind: "aborted", message: "the run was cancelled" });
    // Logs written after the last tool call travel with the answer (untrusted: checked here).
    const answer = typeof outcome === "object" && outcome !== null ? outcome : { answer: "", logs: [] };
    target.logs(answer.logs);
    return host.finish(typeof answer.answer === "string" ? answer.answer : "");
  } catch (error) {
    // The isolate died: out of memory, over its CPU limit, or failed to start.
    return host.fail({ kind: "crashed", message: `the sandbox stopped: ${messageOf(error)}` });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    host.end();
  }
}

interface SandboxEntrypoint {
  run(host: ScriptHostTarget, directoryJson: string, maxLogChars: number): Promise<{ answer: unknown; logs: string[] }>;
}
