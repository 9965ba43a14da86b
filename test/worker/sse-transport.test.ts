import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { WorkerSSEClientTransport } from "../../durable-objects/sse-transport.js";
import { peers } from "./helpers.js";

/** Connects, lists tools and calls echo; returns the ids of the responses the client saw, in order. */
async function deliveredIds(transport: SSEClientTransport): Promise<Array<string | number>> {
  const ids: Array<string | number> = [];
  const client = new Client({ name: "probe", version: "1" });
  await client.connect(transport);
  const onmessage = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && message.id !== undefined && ("result" in message || "error" in message)) ids.push(message.id);
    onmessage(message);
  };
  await client.listTools();
  await client.callTool({ name: "echo", arguments: { message: "once" } });
  await client.close();
  return ids;
}

describe("legacy SSE in workerd", () => {
  it("regression: each server message is delivered once (the polyfill's onmessage ran twice in workerd)", async () => {
    const ids = await deliveredIds(new WorkerSSEClientTransport(new URL(peers.everythingSse)));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it("the plain SDK transport shows the duplicate this works around", async () => {
    const ids = await deliveredIds(new SSEClientTransport(new URL(peers.everythingSse)));
    expect(ids.length).toBe(4);
  });
});
