/**
 * Shared pieces of the bridge tests: fixture paths, deadline-bounded waits on events and
 * conditions (never a bare sleep), process liveness, and a per-file child registry that
 * kills whatever a failed test left running.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { JSONRPCMessage, JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import { afterEach } from "vitest";
import { buildChildEnv } from "../../bridge/src/child-env.js";
import { ChildRegistry } from "../../bridge/src/child-registry.js";
import { ObservingStdioTransport, type ObservingStdioOptions } from "../../bridge/src/observing-stdio-transport.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const NODE = process.execPath;

export function fixture(name: string): string {
  return path.join(ROOT, "test/bridge/fixtures", name);
}

export function packageBin(relative: string): string {
  return path.join(ROOT, "node_modules", relative);
}

/** Polls a condition that no event announces (a pid disappearing); fails with `what` at the deadline. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Rejects when `promise` has not settled by the deadline. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The first notification with `method` the transport receives (installs onmessage). */
export function nextNotification(transport: ObservingStdioTransport, method: string, timeoutMs = 10_000): Promise<JSONRPCNotification> {
  const seen = new Promise<JSONRPCNotification>((resolve) => {
    transport.onmessage = (message: JSONRPCMessage) => {
      if ("method" in message && !("id" in message) && message.method === method) resolve(message);
    };
  });
  return within(seen, timeoutMs, `notification ${method}`);
}

/** Running, not a zombie: a killed process whose parent has not reaped it yet counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

/** The child env a real bridge would give a server with no configured env. */
export function inheritedEnv(serverEnv: Record<string, string> = {}): Record<string, string> {
  return buildChildEnv({ parentEnv: process.env, serverEnv });
}

/**
 * A registry for this test file; after each test everything still running is killed and
 * awaited, so a failing test leaves no process behind.
 */
export function useChildren(): { registry: ChildRegistry; transport: (spec: ConstructorParameters<typeof ObservingStdioTransport>[0], options?: ObservingStdioOptions) => ObservingStdioTransport } {
  const registry = new ChildRegistry();
  const made: ObservingStdioTransport[] = [];
  afterEach(async () => {
    for (const t of made) t.kill("SIGKILL");
    const ended = made.map((t) => (t.state === "idle" ? t.close() : t.closed));
    await within(Promise.all(ended), 10_000, "children to end after the test");
    made.length = 0;
  });
  return {
    registry,
    transport(spec, options = {}) {
      const t = new ObservingStdioTransport(spec, { registry, ...options });
      made.push(t);
      return t;
    },
  };
}
