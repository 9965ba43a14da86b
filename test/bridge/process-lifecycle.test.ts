/**
 * How a server process starts and ends: spawn failures, early exits with their exit code
 * and stderr, the close sequence (stdin end → SIGTERM → SIGKILL) with the real 2 s + 2 s,
 * descendants ended with their process group, and bridge shutdown ending everything.
 */
import { EventEmitter } from "node:events";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { ChildRegistry, installShutdownHandlers, killAllChildren, type ShutdownProcess } from "../../bridge/src/child-registry.js";
import { BridgeError, ChildExitError, SpawnError } from "../../bridge/src/errors.js";
import { ObservingStdioTransport, type ObservingStdioOptions } from "../../bridge/src/observing-stdio-transport.js";
import { fixture, inheritedEnv, isAlive, NODE, nextNotification, useChildren, waitUntil, within } from "./helpers.js";

const children = useChildren();

/** The close grace periods shortened, for tests about something other than the timing. */
const QUICK: ObservingStdioOptions = { stdinCloseGraceMs: 150, sigtermGraceMs: 150 };

function nodeServer(script: string, args: string[] = [], options: ObservingStdioOptions = {}): ObservingStdioTransport {
  return children.transport({ command: NODE, args: [fixture(script), ...args], env: inheritedEnv() }, options);
}

/** Records onerror/onclose in order, resolving when onclose fires. */
function recordEnd(transport: ObservingStdioTransport): { events: string[]; errors: Error[]; ended: () => Promise<void> } {
  const events: string[] = [];
  const errors: Error[] = [];
  const ended = new Promise<void>((resolve) => {
    transport.onerror = (error) => {
      events.push("error");
      errors.push(error);
    };
    transport.onclose = () => {
      events.push("close");
      resolve();
    };
  });
  return { events, errors, ended: () => within(ended, 10_000, "onclose") };
}

describe("start failures", () => {
  it("rejects start() with ENOENT for a command that does not exist", async () => {
    const transport = children.transport({ command: "mcp-edge-no-such-command", args: ["--token", "s3cret"], env: inheritedEnv() }, { name: "ghost" });
    const end = recordEnd(transport);
    const error = await transport.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SpawnError);
    expect(BridgeError.is(error)).toBe(true);
    const spawnError = error as SpawnError;
    expect(spawnError.code).toBe("spawnFailed");
    expect(spawnError.errno).toBe("ENOENT");
    expect(spawnError.message).toMatch(/cannot start server "ghost": command not found \(ENOENT\)/);
    expect(spawnError.message).not.toContain("s3cret");
    expect(transport.state).toBe("closed");
    await transport.close(); // resolves at once
    await within(transport.closed, 1_000, "closed");
    expect(end.events).toEqual([]); // start()'s rejection is the only report
  });

  it("rejects start() when the working directory does not exist", async () => {
    const transport = children.transport({ command: NODE, args: ["-e", ""], env: inheritedEnv(), cwd: path.join(tmpdir(), "mcp-edge-missing-dir") });
    await expect(transport.start()).rejects.toThrow(/working directory .*mcp-edge-missing-dir does not exist/);
  });

  it("refuses a second start()", async () => {
    const transport = nodeServer("print-env.mjs");
    await transport.start();
    await expect(transport.start()).rejects.toMatchObject({ code: "alreadyStarted" });
    await transport.close();
  });

  it("fires onclose when closed before it was started", async () => {
    const transport = nodeServer("print-env.mjs");
    const end = recordEnd(transport);
    await transport.close();
    await end.ended();
    expect(end.events).toEqual(["close"]);
    expect(transport.exit).toBeUndefined();
  });
});

describe("early exit", () => {
  it("reports code 3 and the stderr message through onerror, then onclose", async () => {
    const transport = nodeServer("exit-at-once.mjs", ["3", "fatal: MY_API_KEY is not set"], { name: "crashy" });
    const end = recordEnd(transport);
    await transport.start();
    await end.ended();

    expect(end.events).toEqual(["error", "close"]);
    const error = end.errors[0];
    expect(error).toBeInstanceOf(ChildExitError);
    const exitError = error as ChildExitError;
    expect(exitError.code).toBe("childExited");
    expect(exitError.exit).toEqual({ code: 3, signal: null, stderrTail: "starting up\nfatal: MY_API_KEY is not set\n", hostShutdown: false });
    expect(exitError.message).toBe('server "crashy" exited with code 3: fatal: MY_API_KEY is not set');
    expect(transport.exit).toEqual(exitError.exit);
    expect(transport.failure).toBe(exitError);
    await expect(transport.send({ jsonrpc: "2.0", method: "ping", id: 1 })).rejects.toMatchObject({ code: "notConnected" });
  });

  it("through the SDK Client: connect fails, and the transport still tells why", async () => {
    const transport = nodeServer("exit-at-once.mjs", ["3", "fatal: cannot open database"]);
    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    await expect(client.connect(transport)).rejects.toThrow();
    await within(transport.closed, 10_000, "transport closed");
    expect(transport.exit).toMatchObject({ code: 3, hostShutdown: false });
    expect(transport.exit!.stderrTail).toContain("fatal: cannot open database");
  });

  it("reports a server killed by a signal it did not get from us", async () => {
    const transport = nodeServer("ignore-sigterm.mjs");
    const end = recordEnd(transport);
    const ready = nextNotification(transport, "fixture/ready");
    await transport.start();
    await ready;
    process.kill(transport.pid!, "SIGKILL");
    await end.ended();
    expect(transport.exit).toMatchObject({ code: null, signal: "SIGKILL", hostShutdown: false });
    expect(end.errors[0]?.message).toMatch(/was killed by SIGKILL/);
  });
});

describe("close()", () => {
  it("ends a server that ignores SIGTERM with SIGKILL at ~4 s (the real 2 s + 2 s)", async () => {
    const transport = nodeServer("ignore-sigterm.mjs");
    const end = recordEnd(transport);
    const ready = nextNotification(transport, "fixture/ready");
    await transport.start();
    await ready;

    const started = performance.now();
    await transport.close();
    const elapsed = performance.now() - started;

    expect(elapsed).toBeGreaterThanOrEqual(3_500);
    expect(elapsed).toBeLessThan(8_000);
    expect(transport.exit).toMatchObject({ signal: "SIGKILL", code: null, hostShutdown: true });
    // It saw stdin end and then SIGTERM before the kill.
    expect(transport.exit!.stderrTail).toBe("stdin ended; staying up\nignoring SIGTERM\n");
    await end.ended();
    expect(end.events).toEqual(["close"]);
    expect(transport.failure).toBeUndefined();
  }, 15_000);

  it("uses injected grace periods", async () => {
    const transport = nodeServer("ignore-sigterm.mjs", [], QUICK);
    const ready = nextNotification(transport, "fixture/ready");
    await transport.start();
    await ready;
    const started = performance.now();
    await transport.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(transport.exit).toMatchObject({ signal: "SIGKILL", hostShutdown: true });
  });

  it("is idempotent: concurrent and repeated calls share one sequence", async () => {
    const transport = nodeServer("print-env.mjs");
    const end = recordEnd(transport);
    await transport.start();
    await Promise.all([transport.close(), transport.close()]);
    await transport.close();
    await end.ended();
    expect(end.events).toEqual(["close"]);
    expect(transport.exit).toMatchObject({ code: 0, hostShutdown: true });
  });
});

describe("descendants", () => {
  async function startWithGrandchild(args: string[] = [], options: ObservingStdioOptions = QUICK): Promise<{ transport: ObservingStdioTransport; server: number; grandchild: number }> {
    const transport = nodeServer("spawn-grandchild.mjs", args, options);
    const pids = nextNotification(transport, "fixture/pids");
    await transport.start();
    const { server, grandchild } = (await pids).params as { server: number; grandchild: number };
    expect(isAlive(grandchild)).toBe(true);
    return { transport, server, grandchild };
  }

  it("close() ends the grandchild with the server's process group", async () => {
    const { transport, server, grandchild } = await startWithGrandchild();
    await transport.close();
    expect(transport.exit?.hostShutdown).toBe(true);
    await waitUntil(() => !isAlive(server) && !isAlive(grandchild), "server and grandchild to be gone", 5_000);
  });

  it("a server that leaves on stdin EOF does not leave its grandchild behind (which also holds stderr open)", async () => {
    const { transport, grandchild } = await startWithGrandchild(["--exit-on-eof"], { ...QUICK, pipeDrainMs: 5_000 });
    const started = performance.now();
    await transport.close();
    // Sweeping the group frees the pipe at once: no wait for the drain deadline.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(transport.exit).toMatchObject({ code: 0, hostShutdown: true });
    await waitUntil(() => !isAlive(grandchild), "grandchild to be gone", 5_000);
  });

  it("killAllChildren() ends every child and descendant in the default registry at once", async () => {
    const transports = [0, 1].map(() => new ObservingStdioTransport({ command: NODE, args: [fixture("spawn-grandchild.mjs")], env: inheritedEnv() }));
    const pids = await Promise.all(
      transports.map(async (t) => {
        const reported = nextNotification(t, "fixture/pids");
        await t.start();
        return (await reported).params as { server: number; grandchild: number };
      }),
    );
    try {
      expect(killAllChildren()).toBe(2);
      await within(Promise.all(transports.map((t) => t.closed)), 5_000, "both transports closed");
      for (const t of transports) expect(t.exit).toMatchObject({ signal: "SIGKILL", hostShutdown: true });
      await waitUntil(() => pids.every((p) => !isAlive(p.server) && !isAlive(p.grandchild)), "all pids gone", 5_000);
      expect(killAllChildren()).toBe(0);
    } finally {
      for (const t of transports) t.kill();
    }
  });
});

/** Node's process as far as the shutdown handlers use it; exit() is recorded, not performed. */
class FakeProcess extends EventEmitter implements ShutdownProcess {
  readonly exits: number[] = [];
  readonly exited: Promise<number>;
  readonly #exitNow: (code: number) => void;

  constructor() {
    super();
    let exitNow!: (code: number) => void;
    this.exited = new Promise<number>((resolve) => {
      exitNow = resolve;
    });
    this.#exitNow = exitNow;
  }

  exit(code: number): void {
    this.exits.push(code);
    this.#exitNow(code);
  }
}

describe("installShutdownHandlers", () => {
  async function startIn(registry: ChildRegistry, script: string): Promise<ObservingStdioTransport> {
    const transport = children.transport({ command: NODE, args: [fixture(script)], env: inheritedEnv() }, { ...QUICK, registry });
    const ready = nextNotification(transport, script === "spawn-grandchild.mjs" ? "fixture/pids" : "fixture/ready");
    await transport.start();
    await ready;
    return transport;
  }

  it("on SIGTERM closes every child gracefully, then exits 143", async () => {
    const registry = new ChildRegistry();
    const proc = new FakeProcess();
    const signalled: string[] = [];
    const uninstall = installShutdownHandlers({ registry, proc, onSignal: (s) => signalled.push(s) });
    try {
      const stubborn = await startIn(registry, "ignore-sigterm.mjs");
      const polite = await startIn(registry, "spawn-grandchild.mjs");
      proc.emit("SIGTERM", "SIGTERM");
      expect(await within(proc.exited, 5_000, "exit")).toBe(143);
      expect(signalled).toEqual(["SIGTERM"]);
      expect(stubborn.exit).toMatchObject({ signal: "SIGKILL", hostShutdown: true });
      expect(polite.exit).toMatchObject({ hostShutdown: true });
      expect(registry.size).toBe(0);
    } finally {
      uninstall();
    }
    expect(proc.listenerCount("SIGTERM")).toBe(0);
    expect(proc.listenerCount("exit")).toBe(0);
  });

  it("kills at once on a second signal, and on process exit", async () => {
    const registry = new ChildRegistry();
    const proc = new FakeProcess();
    const uninstall = installShutdownHandlers({ registry, proc, graceMs: 10_000 });
    try {
      const first = await startIn(registry, "ignore-sigterm.mjs");
      proc.emit("SIGINT", "SIGINT");
      proc.emit("SIGINT", "SIGINT");
      expect(await within(proc.exited, 2_000, "exit")).toBe(130);
      await within(first.closed, 2_000, "first closed");
      expect(first.exit).toMatchObject({ signal: "SIGKILL", hostShutdown: true });

      const second = await startIn(registry, "ignore-sigterm.mjs");
      proc.emit("exit");
      await within(second.closed, 2_000, "second closed");
      expect(second.exit).toMatchObject({ signal: "SIGKILL", hostShutdown: true });
    } finally {
      uninstall();
    }
  });
});
