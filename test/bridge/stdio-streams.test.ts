/**
 * The bytes on the pipes: a chatty stderr never blocks the server and leaves a bounded
 * tail; 10 MB messages pass intact both ways; send() waits for stdin to drain; an
 * over-long line or a non-JSON line is reported without losing the stream.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/src/errors.js";
import { DEFAULT_STDERR_TAIL_CHARS } from "../../bridge/src/observing-stdio-transport.js";
import { fixture, inheritedEnv, NODE, nextNotification, useChildren, waitUntil, within } from "./helpers.js";

const children = useChildren();
const TEN_MB = 10 * 1024 * 1024;

/** A 10 MB string whose every position is distinguishable enough to catch a lost or reordered chunk. */
function bigText(length: number): string {
  const block = Array.from({ length: 4096 }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join("");
  const blocks: string[] = [];
  for (let i = 0; blocks.length * (block.length + 8) < length; i++) blocks.push(i.toString(16).padStart(8, "0") + block);
  return blocks.join("").slice(0, length);
}

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { text?: string }[]).map((c) => c.text ?? "").join("");
}

describe("stderr", () => {
  it("a server writing 1 MB to stderr before answering still answers; the tail is the last 4,096 chars", async () => {
    const seen: string[] = [];
    const transport = children.transport({ command: NODE, args: [fixture("chatty-server.mjs")], env: inheritedEnv() }, { onStderr: (text) => seen.push(text) });
    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    await client.connect(transport);

    const result = await client.callTool({ name: "ping", arguments: {} }, undefined, { timeout: 10_000 });
    expect(textOf(result)).toBe("pong");

    // The answer and the last stderr bytes travel on different pipes; the tail catches up.
    await waitUntil(() => transport.stderrTail.endsWith("END-OF-CHATTER\n"), "the end of stderr");
    const tail = transport.stderrTail;
    expect(tail).toHaveLength(DEFAULT_STDERR_TAIL_CHARS);
    expect(tail.endsWith("chatter\nEND-OF-CHATTER\n")).toBe(true);
    expect(seen.join("").length).toBeGreaterThan(1024 * 1024);
    expect(seen.join("").slice(-DEFAULT_STDERR_TAIL_CHARS)).toBe(tail);

    await client.close();
    expect(transport.exit?.stderrTail).toBe(tail);
  });
});

describe("large messages", () => {
  it("a 10 MB argument goes out and comes back intact", async () => {
    const transport = children.transport({ command: NODE, args: [fixture("large-echo-server.mjs")], env: inheritedEnv() });
    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    await client.connect(transport);

    const text = bigText(TEN_MB);
    const result = await client.callTool({ name: "echo", arguments: { text } });
    const echoed = textOf(result);
    expect(echoed.length).toBe(TEN_MB);
    expect(echoed === text).toBe(true); // not toBe: a 10 MB diff would drown the report

    await client.close();
    expect(transport.failure).toBeUndefined();
  });

  it("send() waits for stdin to drain while the server is not reading", async () => {
    const transport = children.transport({ command: NODE, args: [fixture("slow-reader.mjs")], env: inheritedEnv() });
    const ready = nextNotification(transport, "fixture/ready");
    await transport.start();
    await ready;

    const message: JSONRPCMessage = { jsonrpc: "2.0", method: "notifications/big", params: { text: bigText(TEN_MB) } };
    let settled = false;
    const sent = transport.send(message).finally(() => {
      settled = true;
    });
    // Negative check: 10 MB cannot fit in a pipe, so send() must still be waiting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);

    const read = nextNotification(transport, "fixture/read");
    process.kill(transport.pid!, "SIGUSR1");
    await within(sent, 10_000, "send() to resolve after the server reads");
    const { bytes } = (await read).params as { bytes: number };
    expect(bytes).toBe(Buffer.byteLength(serializeMessage(message)) - 1);
  });

  it("a line over the read cap is reported as messageTooLarge and the transport closes", async () => {
    const errors: Error[] = [];
    const transport = children.transport({ command: NODE, args: [fixture("large-echo-server.mjs")], env: inheritedEnv() }, { maxMessageBytes: 64 * 1024 });
    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);

    await expect(client.callTool({ name: "echo", arguments: { text: bigText(256 * 1024) } })).rejects.toThrow();
    await within(transport.closed, 10_000, "transport closed");
    expect(errors.some((e) => BridgeError.is(e) && e.code === "messageTooLarge")).toBe(true);
    expect(transport.exit?.hostShutdown).toBe(true);
  });
});

describe("stdout noise", () => {
  it("reports a line that is not JSON-RPC and keeps reading", async () => {
    const transport = children.transport({ command: NODE, args: [fixture("noisy-stdout.mjs")], env: inheritedEnv() });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    const after = nextNotification(transport, "fixture/after-noise");
    await transport.start();
    await after;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SyntaxError);
    await transport.close();
  });
});
