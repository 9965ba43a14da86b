/**
 * The host side of one script run, shared by both sandboxes: it answers the script's
 * tool calls (directory check, permission seam, call limit, timing), keeps the output
 * budget, and turns the sandbox's final answer into the `ExecResult`. Everything the
 * sandbox sends is untrusted text, parsed with zod here.
 */
import { z } from "zod";
import { messageOf } from "../errors.js";
import type { CodeModeLimits } from "./limits.js";
import { OutputBudget } from "./output.js";
import { scriptOutcome, type ScriptOutcome } from "./script-value.js";
import type { ExecCall, ExecError, ExecResult, ToolCaller, ToolDirectoryEntry, ToolSearch } from "./types.js";

/** The bridge name of `search(query, limit?)`: not a valid tool name, so no tool can take it. */
export const SEARCH_CALL = "$search";
export const DEFAULT_SCRIPT_SEARCH_LIMIT = 8;
export const MAX_SCRIPT_SEARCH_LIMIT = 20;
const SearchArgs = z.object({
  query: z.string().min(1),
  limit: z.number().int().min(1).max(MAX_SCRIPT_SEARCH_LIMIT).optional(),
});

/** The prelude's final answer (see prelude.ts). */
const SandboxAnswer = z.union([
  z.object({ ok: z.literal(true), result: z.string().optional(), dropped: z.number().int().min(0).optional() }),
  z.object({
    ok: z.literal(false),
    error: z.object({ message: z.string(), stack: z.string().optional() }),
    dropped: z.number().int().min(0).optional(),
  }),
]);

/** How a sandbox run ended when it did not answer: out of time, aborted by the caller, or broken. */
export type SandboxFailure = { kind: "timeout" | "aborted" | "crashed"; message: string };

export interface ScriptHostOptions {
  caller: ToolCaller;
  directory: readonly ToolDirectoryEntry[];
  /** `search(query, limit?)` inside the sandbox; without it the script gets an error. */
  search?: ToolSearch;
  limits: CodeModeLimits;
  /** The API caller's signal: aborting it ends the run and cancels its tool calls. */
  signal?: AbortSignal;
  now?: () => number;
}

export class ScriptHost {
  private readonly output: OutputBudget;
  private readonly calls: ExecCall[] = [];
  private readonly names: Set<string>;
  private readonly controller = new AbortController();
  private readonly now: () => number;
  private made = 0;
  private ended = false;

  constructor(private readonly options: ScriptHostOptions) {
    this.output = new OutputBudget(options.limits.maxOutputBytes);
    this.names = new Set(options.directory.map((t) => t.name));
    this.now = options.now ?? Date.now;
    const signal = options.signal;
    if (signal?.aborted) this.controller.abort(signal.reason);
    else signal?.addEventListener("abort", () => this.controller.abort(signal.reason), { once: true });
  }

  /** Aborted when the caller goes away or the run ends: pending tool calls are cancelled. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get directory(): readonly ToolDirectoryEntry[] {
    return this.options.directory;
  }

  get limits(): CodeModeLimits {
    return this.options.limits;
  }

  log(line: string): void {
    if (!this.ended) this.output.log(line);
  }

  /** One tool call from the script: `argsJson` in, the outcome as JSON text out (never throws). */
  async call(name: string, argsJson: string): Promise<string> {
    return JSON.stringify(await this.callOutcome(String(name), String(argsJson)));
  }

  private async callOutcome(name: string, argsJson: string): Promise<ScriptOutcome> {
    if (this.ended || this.controller.signal.aborted) return { ok: false, name: "RunEnded", message: "the run has ended" };
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      return { ok: false, name: "TypeError", message: `${name}: arguments must be JSON-serializable` };
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) return { ok: false, name: "TypeError", message: `${name}: arguments must be an object` };
    if (name === SEARCH_CALL) return this.searchOutcome(args);
    if (!this.names.has(name)) return { ok: false, name: "ToolNotFound", message: `unknown tool "${name}" (see toolDirectory)` };
    if (this.made >= this.options.limits.maxCalls) {
      return { ok: false, name: "LimitError", message: `tool call limit reached (${this.options.limits.maxCalls} per run)` };
    }
    // The permission seam: a denied tool is an error in the script, and no call is made.
    if (this.options.caller.authorize && (await this.options.caller.authorize(name)) !== "allow") {
      return { ok: false, name: "PermissionDenied", message: `tool "${name}" is not allowed in this session` };
    }
    this.made++;
    const started = this.now();
    try {
      const result = await this.options.caller.call(name, args as Record<string, unknown>, this.controller.signal);
      this.record(name, started, result.isError);
      return scriptOutcome(result);
    } catch (error) {
      this.record(name, started, true);
      return { ok: false, name: "ToolError", message: messageOf(error) };
    }
  }

  /** A catalog search: no tool call (not listed, not counted), bounded by the run's wall time. */
  private async searchOutcome(args: unknown): Promise<ScriptOutcome> {
    const search = this.options.search;
    if (!search) return { ok: false, name: "Unsupported", message: "search is not available in this sandbox" };
    const parsed = SearchArgs.safeParse(args);
    if (!parsed.success) return { ok: false, name: "TypeError", message: `search(query, limit?): a non-empty query and a limit from 1 to ${MAX_SCRIPT_SEARCH_LIMIT}` };
    try {
      return { ok: true, value: await search(parsed.data.query, parsed.data.limit ?? DEFAULT_SCRIPT_SEARCH_LIMIT) };
    } catch (error) {
      return { ok: false, name: "SearchError", message: messageOf(error) };
    }
  }

  private record(name: string, started: number, isError: boolean): void {
    if (!this.ended) this.calls.push({ name, ms: Math.max(0, this.now() - started), isError });
  }

  /** The run is over: later calls and logs are refused, pending calls cancelled. */
  end(): void {
    this.ended = true;
    this.controller.abort(new Error("the run has ended"));
  }

  /** The result from the sandbox's final answer (untrusted JSON text). */
  finish(answer: string): ExecResult {
    let parsed: z.output<typeof SandboxAnswer> | undefined;
    try {
      const result = SandboxAnswer.safeParse(JSON.parse(answer));
      if (result.success) parsed = result.data;
    } catch {
      parsed = undefined;
    }
    if (!parsed) return this.fail({ kind: "crashed", message: "the sandbox gave no readable answer" });
    this.output.dropped(parsed.dropped ?? 0);
    if (!parsed.ok) return this.result({ error: parsed.error });
    this.end();
    return { ...this.output.finish(parsed.result), calls: this.calls };
  }

  /** The result of a run the sandbox did not finish. */
  fail(failure: SandboxFailure): ExecResult {
    return this.result({ error: { message: failure.message } });
  }

  private result(extra: { error: ExecError }): ExecResult {
    this.end();
    return { logs: this.output.finish().logs, calls: this.calls, error: capError(extra.error) };
  }
}

/** Error texts also count against nothing but stay bounded: a stack of 10 MB helps nobody. */
function capError(error: ExecError): ExecError {
  const cap = (text: string) => (text.length > 4_000 ? `${text.slice(0, 4_000)}…` : text);
  return { message: cap(error.message), ...(error.stack !== undefined ? { stack: cap(error.stack) } : {}) };
}

/** Message for a run stopped at its wall-time deadline. */
export function timeoutMessage(ms: number): string {
  return `the script ran out of time (${ms} ms)`;
}
