/**
 * An MCP client transport over a stdio server process that the bridge spawns and watches.
 * Unlike the SDK's StdioClientTransport it keeps how the process ended (exit code, signal,
 * stderr tail, whether the bridge ended it) readable after close, reports an early exit as
 * a typed ChildExitError, runs each server in its own process group so descendants end
 * with it, and waits for stdin to drain so a 10 MB message never piles up in memory.
 *
 * States: idle → starting → open → closing → closed.
 *   idle → starting        start()
 *   starting → closed      spawn failed: start() rejects; no onerror/onclose
 *   starting → open        the process is running
 *   open → closing         close() or kill() (host shutdown)
 *   open | closing → closed  the process's stdio all closed: onerror (unless host shutdown), then onclose
 *   idle → closed          close() before start(): onclose only
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { defaultChildRegistry, type ChildRegistry, type TrackedChild } from "./child-registry.js";
import { BridgeError, ChildExitError, SpawnError, type ChildExit } from "./errors.js";
import { redactCommandLine, redactText } from "./redact.js";
import { createTextTail, type TextTail } from "./text-tail.js";

/** close(): how long a server gets to exit on its own after stdin ends. */
export const DEFAULT_STDIN_CLOSE_GRACE_MS = 2_000;
/** close(): how long after SIGTERM before SIGKILL. */
export const DEFAULT_SIGTERM_GRACE_MS = 2_000;
export const DEFAULT_STDERR_TAIL_CHARS = 4_096;
/** One JSON-RPC line from the server; the SDK's own default (10 MiB) is too small for 10 MB payloads. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** After the server exits, how long its pipes may stay open (held by a process outside its group). */
export const DEFAULT_PIPE_DRAIN_MS = 2_000;
/** How much of stderr's last line goes into an error message. */
const STDERR_EXCERPT_CHARS = 300;

export const TransportStates = {
  idle: "idle",
  starting: "starting",
  open: "open",
  closing: "closing",
  closed: "closed",
} as const;
export type TransportState = (typeof TransportStates)[keyof typeof TransportStates];

export interface StdioCommand {
  command: string;
  args?: readonly string[];
  /** The child's whole environment (see buildChildEnv); nothing else is inherited. */
  env: Readonly<Record<string, string>>;
  cwd?: string;
}

export interface ObservingStdioOptions {
  /** The server's name in errors. */
  name?: string;
  stdinCloseGraceMs?: number;
  sigtermGraceMs?: number;
  pipeDrainMs?: number;
  stderrTailChars?: number;
  maxMessageBytes?: number;
  registry?: ChildRegistry;
  /** Every stderr chunk as text, e.g. for a debug log (redact before printing). */
  onStderr?: (text: string) => void;
}

const IS_WINDOWS = process.platform === "win32";

export class ObservingStdioTransport implements Transport, TrackedChild {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** The command line as it may be logged. */
  readonly commandLine: string;

  readonly #spec: StdioCommand;
  readonly #name: string;
  readonly #stdinCloseGraceMs: number;
  readonly #sigtermGraceMs: number;
  readonly #pipeDrainMs: number;
  readonly #registry: ChildRegistry;
  readonly #onStderr: ((text: string) => void) | undefined;
  readonly #readBuffer: ReadBuffer;
  readonly #stderr: TextTail;

  #state: TransportState = TransportStates.idle;
  #child: ChildProcessWithoutNullStreams | undefined;
  #starting: Promise<void> | undefined;
  #exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #exit: ChildExit | undefined;
  #failure: ChildExitError | undefined;
  #hostShutdown = false;
  #overflowed = false;
  #drainTimer: NodeJS.Timeout | undefined;
  readonly #exitWaiters = new Set<() => void>();
  readonly #closed: Promise<void>;
  #resolveClosed!: () => void;

  constructor(spec: StdioCommand, options: ObservingStdioOptions = {}) {
    this.#spec = spec;
    this.#name = options.name ?? spec.command;
    this.#stdinCloseGraceMs = options.stdinCloseGraceMs ?? DEFAULT_STDIN_CLOSE_GRACE_MS;
    this.#sigtermGraceMs = options.sigtermGraceMs ?? DEFAULT_SIGTERM_GRACE_MS;
    this.#pipeDrainMs = options.pipeDrainMs ?? DEFAULT_PIPE_DRAIN_MS;
    this.#registry = options.registry ?? defaultChildRegistry;
    this.#onStderr = options.onStderr;
    this.#readBuffer = new ReadBuffer({ maxBufferSize: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES });
    this.#stderr = createTextTail(options.stderrTailChars ?? DEFAULT_STDERR_TAIL_CHARS);
    this.commandLine = redactCommandLine(spec.command, spec.args ?? []);
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  get state(): TransportState {
    return this.#state;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the process ended; undefined until it has (and stays readable after close). */
  get exit(): ChildExit | undefined {
    return this.#exit;
  }

  /** The error reported for an exit the bridge did not ask for. */
  get failure(): ChildExitError | undefined {
    return this.#failure;
  }

  /** stderr so far (the last stderrTailChars), live while the process runs. */
  get stderrTail(): string {
    return this.#stderr.text();
  }

  /** Resolves once the process has ended and onclose has run. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  async start(): Promise<void> {
    if (this.#state !== TransportStates.idle) {
      throw new BridgeError("alreadyStarted", `server "${this.#name}": transport already started`);
    }
    this.#state = TransportStates.starting;
    this.#starting = this.#spawn();
    return this.#starting;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (this.#state !== TransportStates.open || !stdin?.writable) {
      throw new BridgeError("notConnected", `server "${this.#name}" is not running (${this.#state})`);
    }
    if (stdin.write(serializeMessage(message))) return;
    // Backpressure: the caller waits until the child has read what is buffered.
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error): void => {
        stdin.off("drain", onDrain);
        stdin.off("close", onClose);
        stdin.off("error", onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(new BridgeError("notConnected", `server "${this.#name}" closed its stdin before reading the message`));
      stdin.on("drain", onDrain);
      stdin.on("close", onClose);
      stdin.on("error", onClose);
    });
  }

  /** Ends the server: stdin end, SIGTERM after stdinCloseGraceMs, SIGKILL after sigtermGraceMs more. */
  async close(): Promise<void> {
    switch (this.#state) {
      case TransportStates.idle:
        this.#state = TransportStates.closed;
        this.#resolveClosed();
        this.onclose?.();
        return;
      case TransportStates.starting:
        await this.#starting?.catch(() => undefined);
        return this.close();
      case TransportStates.closing:
      case TransportStates.closed:
        return this.#closed;
      case TransportStates.open:
        break;
    }
    this.#state = TransportStates.closing;
    if (!this.#exited) this.#hostShutdown = true;
    this.#child?.stdin.end();
    if (!(await this.#waitForExit(this.#stdinCloseGraceMs))) {
      this.#signal("SIGTERM");
      if (!(await this.#waitForExit(this.#sigtermGraceMs))) this.#signal("SIGKILL");
    }
    return this.#closed;
  }

  /** Immediate: signals the whole process group (bridge shutdown). Never reported as a failure. */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.#state !== TransportStates.open && this.#state !== TransportStates.closing) return;
    this.#state = TransportStates.closing;
    if (!this.#exited) this.#hostShutdown = true;
    this.#signal(signal);
  }

  async #spawn(): Promise<void> {
    const { command, args = [], env, cwd } = this.#spec;
    if (cwd !== undefined && !existsSync(cwd)) {
      this.#startFailed();
      throw new SpawnError(`cannot start server "${this.#name}": working directory ${cwd} does not exist`, "ENOENT", this.commandLine);
    }
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(command, args, {
        cwd,
        env,
        stdio: ["pipe", "pipe", "pipe"],
        // Its own process group, so one signal reaches every descendant.
        detached: !IS_WINDOWS,
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      // Synchronous failures: invalid arguments (a NUL byte), EINVAL.
      this.#startFailed();
      throw this.#spawnError(error);
    }
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => {
        resolve();
      });
      child.on("error", (error) => {
        if (this.#state === TransportStates.starting) {
          this.#startFailed();
          reject(this.#spawnError(error));
        } else if (this.#state !== TransportStates.closed) {
          this.onerror?.(error);
        }
      });
      child.stdout.on("data", (chunk: Buffer) => this.#onStdout(chunk));
      child.stderr.on("data", (chunk: Buffer) => this.#onStderrChunk(chunk));
      child.stdin.on("error", (error: NodeJS.ErrnoException) => this.#onStdinError(error));
      child.once("exit", (code, signal) => this.#onExit(code, signal));
      child.once("close", () => this.#onClose());
    });
    this.#state = TransportStates.open;
    this.#registry.add(this);
  }

  /** start() rejects with the reason; close() and `closed` must not wait for a process that never ran. */
  #startFailed(): void {
    this.#state = TransportStates.closed;
    this.#resolveClosed();
  }

  #spawnError(error: unknown): SpawnError {
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    const why = errno === "ENOENT" ? "command not found" : errno === "EACCES" ? "permission denied" : "spawn failed";
    return new SpawnError(
      `cannot start server "${this.#name}": ${why}${errno ? ` (${errno})` : ""}: ${this.commandLine}`,
      errno,
      this.commandLine,
      { cause: error },
    );
  }

  #onStdout(chunk: Buffer): void {
    // After an oversized line the rest of the stream has no message boundary we can trust.
    if (this.#overflowed) return;
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      this.#overflowed = true;
      this.onerror?.(new BridgeError("messageTooLarge", `server "${this.#name}" sent a message over the size limit`, { cause: error }));
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        // The bad line is already consumed; later lines still parse.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  #onStderrChunk(chunk: Buffer): void {
    const text = this.#stderr.append(chunk);
    this.#onStderr?.(text);
  }

  #onStdinError(error: NodeJS.ErrnoException): void {
    // EPIPE: the server stopped reading (it is exiting); the exit report says why.
    if (error.code === "EPIPE" || this.#state !== TransportStates.open) return;
    this.onerror?.(error);
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#state === TransportStates.closed) return; // spawn failed; nothing ran
    this.#exited = { code, signal };
    for (const wake of this.#exitWaiters) wake();
    this.#exitWaiters.clear();
    // The leader is gone; whatever it left in its group would be orphaned.
    this.#signal("SIGKILL");
    // 'close' waits for every pipe; a process outside the group could hold one forever.
    this.#drainTimer = setTimeout(() => {
      this.#child?.stdout.destroy();
      this.#child?.stderr.destroy();
      this.#child?.stdin.destroy();
    }, this.#pipeDrainMs);
  }

  #onClose(): void {
    if (this.#state === TransportStates.closed) return; // spawn failed; start() already rejected
    clearTimeout(this.#drainTimer);
    this.#registry.delete(this);
    this.#readBuffer.clear();
    const exited = this.#exited ?? { code: this.#child?.exitCode ?? null, signal: this.#child?.signalCode ?? null };
    this.#exit = { ...exited, stderrTail: this.#stderr.text(), hostShutdown: this.#hostShutdown };
    this.#state = TransportStates.closed;
    if (!this.#hostShutdown) {
      this.#failure = new ChildExitError(this.#exitMessage(this.#exit), this.#exit);
      this.onerror?.(this.#failure);
    }
    this.#resolveClosed();
    this.onclose?.();
  }

  #exitMessage(exit: ChildExit): string {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const lastLine = exit.stderrTail.trimEnd().split("\n").pop()?.trim().slice(-STDERR_EXCERPT_CHARS);
    return `server "${this.#name}" ${how}${lastLine ? `: ${redactText(lastLine)}` : ""}`;
  }

  #waitForExit(ms: number): Promise<boolean> {
    if (this.#exited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#exitWaiters.delete(wake);
        resolve(false);
      }, ms);
      this.#exitWaiters.add(wake);
    });
  }

  #signal(signal: NodeJS.Signals): void {
    const child = this.#child;
    if (child?.pid === undefined) return;
    if (IS_WINDOWS) {
      child.kill(signal);
      return;
    }
    try {
      process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
  }
}
