import { describe, expect, it } from "vitest";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { UpstreamConnection, type ConnectionHooks } from "../../durable-objects/upstream-connection.js";
import { ConnectionState } from "../../src/core/connection-state.js";
import { peers } from "./helpers.js";

interface SentRequest {
  method: string;
  sessionId: string | null;
}

/** Hooks for one connection; `fetch` records each request's method and session id on its way to the real server. */
function recordingHooks(sent: SentRequest[], respond: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> = (input, init) => fetch(input, init)): ConnectionHooks {
  return {
    roots: () => [],
    onToolsChanged: () => undefined,
    onStateChanged: () => undefined,
    log: () => undefined,
    fetch: async (input, init) => {
      sent.push({ method: init?.method ?? "GET", sessionId: new Headers(init?.headers).get("mcp-session-id") });
      return respond(input, init);
    },
  };
}

/** A ping on an upstream session from outside the connection: the server's answer status says whether it still knows the session. */
async function pingStatus(sessionId: string): Promise<number> {
  const response = await fetch(peers.everything, {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await response.body?.cancel();
  return response.status;
}

const timeouts = { startup: 10_000, request: 10_000, maxTotal: 60_000 };

describe("closing an upstream connection", () => {
  it("regression (found by the soak): close() ends the upstream session with a DELETE, so the server frees it", async () => {
    const sent: SentRequest[] = [];
    const connection = new UpstreamConnection("everything", { type: "remote", url: peers.everything }, timeouts, recordingHooks(sent));
    await connection.connect();
    expect(connection.state).toBe(ConnectionState.connected);
    const sessionId = sent.find((r) => r.sessionId)?.sessionId;
    expect(sessionId).toBeTruthy();
    expect(await pingStatus(sessionId!)).toBe(200);

    await connection.close();

    expect(connection.state).toBe(ConnectionState.closed);
    expect(sent).toContainEqual({ method: "DELETE", sessionId });
    // server-everything answers 400 to a session id it no longer holds.
    expect(await pingStatus(sessionId!)).toBe(400);
  });

  it("a server that never answers the DELETE does not hold up closing: it is given up on after the request timeout", async () => {
    const sent: SentRequest[] = [];
    const hangOnDelete = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
      init?.method === "DELETE"
        ? new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)))
        : fetch(input, init);
    const connection = new UpstreamConnection(
      "everything",
      { type: "remote", url: peers.everything },
      { ...timeouts, request: 200 },
      recordingHooks(sent, hangOnDelete),
    );
    await connection.connect();
    expect(connection.state).toBe(ConnectionState.connected);

    await connection.close();

    expect(connection.state).toBe(ConnectionState.closed);
    expect(sent.some((r) => r.method === "DELETE")).toBe(true);
  });

  it("disconnecting (disable) ends the upstream session too: connecting again initializes a fresh one", async () => {
    const sent: SentRequest[] = [];
    const connection = new UpstreamConnection("everything", { type: "remote", url: peers.everything }, timeouts, recordingHooks(sent));
    await connection.connect();
    const first = sent.find((r) => r.sessionId)?.sessionId;

    await connection.disable();

    expect(connection.state).toBe(ConnectionState.disabled);
    expect(sent).toContainEqual({ method: "DELETE", sessionId: first });
    expect(await pingStatus(first!)).toBe(400);

    sent.length = 0;
    await connection.connect();
    expect(connection.state).toBe(ConnectionState.connected);
    const second = sent.find((r) => r.sessionId)?.sessionId;
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    await connection.close();
  });
});
