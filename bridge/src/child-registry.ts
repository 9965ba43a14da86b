/**
 * Every live server process the bridge started, so shutting the bridge down ends them
 * all and their descendants (each child leads its own process group). Children spawned
 * detached do not get the terminal's Ctrl-C, which is why the bridge must do this itself.
 */
import { constants } from "node:os";

/** What the registry needs from a running child (ObservingStdioTransport provides it). */
export interface TrackedChild {
  /** Signals the child's process group at once, marking the end as the host's doing. */
  kill(signal?: NodeJS.Signals): void;
  /** The graceful sequence: stdin end, SIGTERM, SIGKILL. */
  close(): Promise<void>;
}

/** Bridge shutdown: how long graceful closes may take before everything is killed. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

export class ChildRegistry {
  readonly #live = new Set<TrackedChild>();

  add(child: TrackedChild): void {
    this.#live.add(child);
  }

  delete(child: TrackedChild): void {
    this.#live.delete(child);
  }

  get size(): number {
    return this.#live.size;
  }

  /** Synchronous, so it is safe inside a process 'exit' listener. Returns how many were signalled. */
  killAll(signal: NodeJS.Signals = "SIGKILL"): number {
    const children = [...this.#live];
    for (const child of children) child.kill(signal);
    return children.length;
  }

  /** Runs every child's close sequence at once; resolves when all have ended. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#live].map((child) => child.close()));
  }
}

/** The registry transports join unless given another one. */
export const defaultChildRegistry = new ChildRegistry();

export function killAllChildren(signal: NodeJS.Signals = "SIGKILL"): number {
  return defaultChildRegistry.killAll(signal);
}

export function closeAllChildren(): Promise<void> {
  return defaultChildRegistry.closeAll();
}

/** The slice of `process` the shutdown handlers use; tests pass a stand-in for exit(). */
export interface ShutdownProcess {
  on(event: "exit", listener: () => void): unknown;
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: "exit", listener: () => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
}

export interface ShutdownOptions {
  registry?: ChildRegistry;
  signals?: readonly NodeJS.Signals[];
  graceMs?: number;
  proc?: ShutdownProcess;
  /** Called first on a signal, e.g. to close the WebSocket link. */
  onSignal?: (signal: NodeJS.Signals) => void;
}

/**
 * SIGINT/SIGTERM: close every child gracefully (bounded by graceMs), kill what is left,
 * exit 128+signo. A second signal kills at once. Process exit for any other reason
 * (an uncaught error) still kills every group. Returns a function that uninstalls.
 */
export function installShutdownHandlers(options: ShutdownOptions = {}): () => void {
  const registry = options.registry ?? defaultChildRegistry;
  const proc = options.proc ?? process;
  const signals = options.signals ?? ["SIGINT", "SIGTERM"];
  const graceMs = options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  let shuttingDown = false;

  const onExit = (): void => {
    registry.killAll("SIGKILL");
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    const code = 128 + (constants.signals[signal] ?? 0);
    if (shuttingDown) {
      registry.killAll("SIGKILL");
      proc.exit(code);
      return;
    }
    shuttingDown = true;
    options.onSignal?.(signal);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    void Promise.race([registry.closeAll(), deadline]).then(() => {
      clearTimeout(timer);
      registry.killAll("SIGKILL");
      proc.exit(code);
    });
  };

  proc.on("exit", onExit);
  for (const signal of signals) proc.on(signal, onSignal);
  return () => {
    proc.off("exit", onExit);
    for (const signal of signals) proc.off(signal, onSignal);
  };
}
