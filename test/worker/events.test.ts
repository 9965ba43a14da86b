import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createSseParser, type SseEvent } from "../../src/core/sse-parser.js";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

/** Opens the session's event stream and reads events until `until` says stop (with a deadline). */
async function openEvents(id: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${id}/events`, { headers, signal: controller.signal }));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const reader = response.body!.getReader();
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const seen: SseEvent[] = [];
  return {
    seen,
    async until(check: (events: SseEvent[]) => boolean, timeoutMs = 10_000): Promise<SseEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (!check(seen)) {
        if (Date.now() > deadline) throw new Error(`events not seen within ${timeoutMs} ms: ${JSON.stringify(seen).slice(0, 500)}`);
        const { value, done } = await reader.read();
        if (done) break;
        seen.push(...parser.push(decoder.decode(value, { stream: true })));
      }
      return seen;
    },
    close() {
      controller.abort();
      void reader.cancel().catch(() => undefined);
    },
  };
}

const data = (event: SseEvent) => JSON.parse(event.data) as Record<string, unknown>;

describe("the session event stream", () => {
  it("shows server states and tool metrics live (started, progress, finished with duration and error flag)", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const stream = await openEvents(session.id);
    try {
      // The backlog: the server's connection.
      await stream.until((e) => e.some((x) => x.event === "server.status" && data(x).server === "everything"));
      expect(data(stream.seen.find((x) => x.event === "server.status" && data(x).server === "everything")!)).toMatchObject({ status: "connected", tools: expect.any(Number) });

      const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, {
        name: "everything_trigger-long-running-operation",
        arguments: { duration: 0.4, steps: 2 },
      });
      expect(call.status).toBe(200);
      await stream.until((e) => e.some((x) => x.event === "tool.finished"));
      const started = stream.seen.find((x) => x.event === "tool.started")!;
      const progress = stream.seen.filter((x) => x.event === "tool.progress");
      const finished = stream.seen.find((x) => x.event === "tool.finished")!;
      expect(data(started)).toMatchObject({ name: "everything_trigger-long-running-operation", server: "everything" });
      expect(progress.length).toBe(2);
      expect(data(finished)).toMatchObject({ callId: data(started).callId, isError: false, ms: expect.any(Number) });
      expect(Number(finished.id)).toBeGreaterThan(Number(started.id));
    } finally {
      stream.close();
    }
  });

  it("resumes after Last-Event-ID with only what was missed", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const first = await openEvents(session.id);
    await first.until((e) => e.length > 0);
    const lastId = first.seen.at(-1)!.id!;
    first.close();

    await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "while away" } });
    const again = await openEvents(session.id, { "Last-Event-ID": lastId });
    try {
      await again.until((e) => e.some((x) => x.event === "tool.finished"));
      expect(again.seen.every((x) => Number(x.id) > Number(lastId))).toBe(true);
      expect(again.seen.map((x) => x.event)).toEqual(["tool.started", "tool.finished"]);
    } finally {
      again.close();
    }
  });

  it("server log messages (notifications/message) arrive as log events", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const stream = await openEvents(session.id);
    try {
      const toggled = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_toggle-simulated-logging" });
      expect(toggled.status).toBe(200);
      await stream.until((e) => e.some((x) => x.event === "log"));
      expect(data(stream.seen.find((x) => x.event === "log")!)).toMatchObject({ server: "everything", level: expect.any(String), data: expect.stringMatching(/message/i) });
      await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_toggle-simulated-logging" });
    } finally {
      stream.close();
    }
  });

  it("a bad Last-Event-ID is a 400; an unknown session a 404", async () => {
    const session = await createSession({});
    const bad = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${session.id}/events`, { headers: { "Last-Event-ID": "yesterday" } }));
    expect(bad.status).toBe(400);
    expect((await api("GET", "/v1/sessions/ses_0000000000000000000000000z/events")).status).toBe(404);
  });
});

describe("event stream over a WebSocket", () => {
  async function openSocket(sessionId: string, query = ""): Promise<{ socket: WebSocket; messages: Array<{ id: number; type: string; data: Record<string, unknown> }>; closed: Promise<{ code: number; reason: string }> }> {
    const response = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${sessionId}/events${query}`, { headers: { upgrade: "websocket" } }));
    expect(response.status).toBe(101);
    const socket = response.webSocket!;
    const messages: Array<{ id: number; type: string; data: Record<string, unknown> }> = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })));
    socket.addEventListener("message", (e) => {
      messages.push(JSON.parse(e.data as string));
    });
    socket.accept();
    return { socket, messages, closed };
  }

  it("delivers the same events as JSON messages, backlog first, then live", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const { socket, messages } = await openSocket(session.id);
    await eventually(async () => messages.length, (n) => n > 0);
    expect(messages[0]!.type).toBe("server.status");
    await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "ws" } });
    const seen = await eventually(async () => messages.map((m) => m.type), (types) => types.includes("tool.finished"));
    expect(seen).toContain("tool.started");
    const finished = messages.find((m) => m.type === "tool.finished")!;
    expect(finished.data).toMatchObject({ name: "everything_echo", isError: false });
    // Resuming after the last id gets nothing old.
    const last = messages.at(-1)!.id;
    socket.close(1000, "done");
    const resumed = await openSocket(session.id, `?lastEventId=${last}`);
    await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "again" } });
    await eventually(async () => resumed.messages.map((m) => m.type), (types) => types.includes("tool.finished"));
    expect(resumed.messages.every((m) => m.id > last)).toBe(true);
    resumed.socket.close(1000, "done");
  });

  it("an unknown session closes the socket with 4404", async () => {
    const { closed } = await openSocket("ses_0000000000000000000000zzzz");
    expect((await closed).code).toBe(4404);
  });
});
