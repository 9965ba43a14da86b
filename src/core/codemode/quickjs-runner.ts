/**
 * Runs one script in QuickJS (WebAssembly): a fresh runtime and context per run, with
 * a memory limit, a stack limit and an interrupt handler. The loaded QuickJS module is
 * injected, so this runs in plain Node and in workerd alike (each loads the `.wasm` its
 * own way). No `fetch`, sockets, modules or timers exist inside; the only way out is the
 * bridge to the {@link ScriptHost}.
 *
 * Time: the interrupt handler stops the script at the wall deadline. Inside workerd the
 * clock does not move while code runs (it advances on I/O), so the handler also counts
 * its own calls: QuickJS calls it about every 10,000 bytecode operations, and
 * `interruptsPerMs` of them stand for a millisecond of CPU.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten-core";
import { messageOf } from "../errors.js";
import { timeoutMessage, type ScriptHost } from "./host.js";
import { PRELUDE, wrapScript } from "./prelude.js";
import type { ExecResult } from "./types.js";

/**
 * Interrupt-handler calls counted as one millisecond when the clock stands still. Measured
 * in Node on a busy 2-core machine: `while(true){}` 3.3 per ms, `for(;;) i++` 1 per ms, a
 * loop of array and JSON built-ins 0.04 per ms (the counter only runs down on bytecode, not
 * inside built-ins). A rough CPU proxy: the platform's own CPU limit is the backstop.
 */
export const DEFAULT_INTERRUPTS_PER_MS = 5;

export interface QuickJSRunOptions {
  interruptsPerMs?: number;
  now?: () => number;
  /**
   * The module cannot be trusted any more (a run stopped mid-way left objects QuickJS
   * could not free, or the host's stack overflowed inside it): load a fresh one, or its
   * memory only grows.
   */
  onModuleBroken?: () => void;
}

export async function runInQuickJS(quickjs: QuickJSWASMModule, code: string, host: ScriptHost, options: QuickJSRunOptions = {}): Promise<ExecResult> {
  const now = options.now ?? Date.now;
  const limits = host.limits;
  const deadline = now() + limits.timeoutMs;
  const maxInterrupts = limits.timeoutMs * (options.interruptsPerMs ?? DEFAULT_INTERRUPTS_PER_MS);
  let interrupts = 0;
  let stopped: "timeout" | "aborted" | undefined;
  const shouldStop = () => {
    if (stopped) return true;
    if (host.signal.aborted) stopped = "aborted";
    else if (now() > deadline || interrupts > maxInterrupts) stopped = "timeout";
    return stopped !== undefined;
  };
  const stoppedResult = () =>
    host.fail(stopped === "aborted" ? { kind: "aborted", message: "the run was cancelled" } : { kind: "timeout", message: timeoutMessage(limits.timeoutMs) });

  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => {
    interrupts++;
    return shouldStop();
  });
  const context = runtime.newContext();
  const deferreds = new Set<QuickJSDeferredPromise>();
  let inFlight = 0;
  let wake: () => void = () => undefined;
  try {
    installBridge(context, host, deferreds, {
      started: () => inFlight++,
      settled: () => {
        inFlight--;
        wake();
      },
    });
    const source = `${PRELUDE}\n(() => {\n  const globals = __createScriptGlobals(__bridge, ${JSON.stringify(host.directory)}, ${limits.maxOutputBytes});\n  delete globalThis.__bridge;\n  globalThis.console = globals.console;\n  globalThis.tools = globals.tools;\n  globalThis.callTool = globals.callTool;\n  globalThis.search = globals.search;\n  globalThis.toolDirectory = globals.toolDirectory;\n  return __runScript(${wrapScript(code)}, globals);\n})()`;
    const evaluated = context.evalCode(source, "script.js");
    if (evaluated.error) {
      const error = dumpError(context, evaluated.error);
      evaluated.error.dispose();
      if (shouldStop()) return stoppedResult();
      return host.fail({ kind: "crashed", message: error });
    }
    const promise = evaluated.value;
    const aborted = new Promise<void>((resolve) => host.signal.addEventListener("abort", () => resolve(), { once: true }));
    try {
      for (;;) {
        const jobs = runtime.executePendingJobs();
        if (jobs.error) {
          const error = dumpError(context, jobs.error);
          jobs.error.dispose();
          if (shouldStop()) return stoppedResult();
          return host.fail({ kind: "crashed", message: error });
        }
        if (shouldStop()) return stoppedResult();
        const state = context.getPromiseState(promise);
        if (state.type === "fulfilled") {
          const answer = context.typeof(state.value) === "string" ? context.getString(state.value) : "";
          state.value.dispose();
          return host.finish(answer);
        }
        if (state.type === "rejected") {
          const error = dumpError(context, state.error);
          state.error.dispose();
          return host.fail({ kind: "crashed", message: error });
        }
        if (inFlight === 0) return host.fail({ kind: "crashed", message: "the script waits on a promise that nothing can settle (there are no timers in the sandbox)" });
        // Wait for a tool call to settle, the deadline or the caller going away, whichever first.
        const woken = new Promise<void>((resolve) => (wake = resolve));
        let timer: ReturnType<typeof setTimeout> | undefined;
        const deadlineReached = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - now()) + 1)));
        await Promise.race([woken, deadlineReached, aborted]);
        if (timer !== undefined) clearTimeout(timer);
      }
    } finally {
      promise.dispose();
    }
  } catch (error) {
    options.onModuleBroken?.();
    return host.fail({ kind: "crashed", message: `sandbox failure: ${messageOf(error)}` });
  } finally {
    host.end();
    try {
      for (const deferred of deferreds) deferred.dispose();
      context.dispose();
      runtime.dispose();
    } catch {
      options.onModuleBroken?.();
    }
  }
}

interface InFlight {
  started(): void;
  settled(): void;
}

/** `__bridge` = { call(name, argsJson) → Promise<string>, log(line) }, host functions. */
function installBridge(context: QuickJSContext, host: ScriptHost, deferreds: Set<QuickJSDeferredPromise>, inFlight: InFlight): void {
  const bridge = context.newObject();
  const call = context.newFunction("call", (nameHandle: QuickJSHandle, argsHandle: QuickJSHandle) => {
    const name = context.getString(nameHandle);
    const args = context.getString(argsHandle);
    const deferred = context.newPromise();
    deferreds.add(deferred);
    inFlight.started();
    void host.call(name, args).then((answer) => {
      if (deferred.alive) {
        const value = context.newString(answer);
        deferred.resolve(value);
        value.dispose();
        deferreds.delete(deferred);
        deferred.dispose();
      }
      inFlight.settled();
    });
    return deferred.handle;
  });
  const log = context.newFunction("log", (lineHandle: QuickJSHandle) => {
    host.log(context.getString(lineHandle));
  });
  context.setProp(bridge, "call", call);
  context.setProp(bridge, "log", log);
  context.setProp(context.global, "__bridge", bridge);
  call.dispose();
  log.dispose();
  bridge.dispose();
}

function dumpError(context: QuickJSContext, handle: QuickJSHandle): string {
  try {
    const value = context.dump(handle) as unknown;
    if (typeof value === "object" && value !== null && "message" in value) {
      const { name, message } = value as { name?: unknown; message?: unknown };
      return typeof name === "string" && name !== "Error" ? `${name}: ${String(message)}` : String(message);
    }
    return String(value);
  } catch {
    return "the script failed";
  }
}
