/**
 * `POST /exec` for a session: runs a script in the deployment's sandbox with the
 * session's catalog as its tools. The sandbox is a Worker Loader isolate when the
 * `LOADER` binding exists (or `CODE_SANDBOX = "loader"`), QuickJS otherwise (or with
 * `CODE_SANDBOX = "quickjs"`). Tool calls go through the session exactly like direct
 * calls; credentials never enter the sandbox (it only sees names, arguments and results).
 */
import { ScriptHost } from "../src/core/codemode/host.js";
import type { CodeModeLimits } from "../src/core/codemode/limits.js";
import { runInQuickJS } from "../src/core/codemode/quickjs-runner.js";
import type { ExecResult, SandboxKind, ToolCaller, ToolDirectoryEntry, ToolSearch } from "../src/core/codemode/types.js";
import { McpEdgeError } from "../src/core/errors.js";
import type { CodeModeSettings } from "../src/env.js";
import { runInLoader } from "./loader-sandbox.js";
import { dropQuickJS, loadQuickJS } from "./quickjs-module.js";

export interface ExecRequest {
  code: string;
  timeoutMs?: number;
}

export interface CodeModeDeps {
  settings: CodeModeSettings;
  loader: WorkerLoader | undefined;
  caller: ToolCaller;
  directory: () => Promise<ToolDirectoryEntry[]>;
  search?: ToolSearch;
}

/** Which sandbox a deployment runs scripts in. */
export function chooseSandbox(settings: CodeModeSettings, loader: WorkerLoader | undefined): SandboxKind {
  if (settings.sandbox === "quickjs") return "quickjs";
  if (settings.sandbox === "loader") {
    if (!loader) throw new McpEdgeError("internal", 'CODE_SANDBOX is "loader" but the Worker has no LOADER binding');
    return "loader";
  }
  return loader ? "loader" : "quickjs";
}

export async function runScript(deps: CodeModeDeps, request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
  const kind = chooseSandbox(deps.settings, deps.loader);
  const limits: CodeModeLimits = { ...deps.settings.limits, timeoutMs: request.timeoutMs ?? deps.settings.limits.timeoutMs };
  const host = new ScriptHost({
    caller: deps.caller,
    directory: await deps.directory(),
    limits,
    ...(deps.search ? { search: deps.search } : {}),
    ...(signal ? { signal } : {}),
  });
  if (kind === "loader") return runInLoader(deps.loader!, request.code, host, { cpuMs: limits.timeoutMs });
  return runInQuickJS(await loadQuickJS(), request.code, host, { onModuleBroken: dropQuickJS });
}
