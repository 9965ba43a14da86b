/**
 * Fault: a bridged child that floods stderr (tens of MB) while it serves. Calls keep
 * working, the bridge keeps only a bounded tail of it, and the child's exit shows that
 * tail's last line.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { DEFAULT_STDERR_TAIL_CHARS } from "../../bridge/src/observing-stdio-transport.js";
import { fixture, inheritedEnv, NODE, useChildren, waitUntil, within } from "./helpers.js";

const children = useChildren();
const EIGHT_MB = 8 * 1024 * 1024;

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as { text?: string }[]).map((c) => c.text ?? "").join("");

describe("a child that floods stderr", () => {
  it("keeps answering calls, the stderr tail stays capped, and its exit shows the tail", async () => {
    let stderrChars = 0;
    const transport = children.transport(
      { command: NODE, args: [fixture("stderr-flood.mjs")], env: inheritedEnv() },
      { name: "flood", onStderr: (text) => (stderrChars += text.length) },
    );
    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    await client.connect(transport);

    // Calls interleave with the flood: every one answers, none waits for stderr to stop.
    let calls = 0;
    while (stderrChars < EIGHT_MB) {
      expect(textOf(await client.callTool({ name: "ping", arguments: {} }, undefined, { timeout: 10_000 }))).toBe("pong");
      calls++;
      expect(transport.stderrTail.length).toBeLessThanOrEqual(DEFAULT_STDERR_TAIL_CHARS);
      if (calls > 100_000) throw new Error("the flood never reached 8 MB");
    }
    expect(Number(textOf(await client.callTool({ name: "flooded", arguments: {} })))).toBeGreaterThanOrEqual(EIGHT_MB);
    expect(transport.stderrTail).toHaveLength(DEFAULT_STDERR_TAIL_CHARS);

    // The exit: no answer comes, the process ends with code 7 and its last stderr line.
    const closed = transport.closed;
    await client.callTool({ name: "exit", arguments: { code: 7 } }, undefined, { timeout: 10_000 }).catch(() => undefined);
    await within(closed, 10_000, "the flooding child to exit");
    await waitUntil(() => transport.exit !== undefined, "the exit record");
    expect(transport.exit).toMatchObject({ code: 7 });
    expect(transport.exit!.stderrTail.length).toBeLessThanOrEqual(DEFAULT_STDERR_TAIL_CHARS);
    expect(transport.exit!.stderrTail.endsWith("FLOOD-END exiting with 7\n")).toBe(true);
    expect(transport.failure?.message).toBe('server "flood" exited with code 7: FLOOD-END exiting with 7');
  });
});
