import { describe, expect, it } from "vitest";
import { api, createSession, peers, remote } from "./helpers.js";

const turnAware = () => peers.fixture.replace(/\/mcp$/, "/turns/mcp");

describe("turn lifecycle (io.mcp-edge/turn-lifecycle v1)", () => {
  it("turn-aware servers get _meta on tool calls and a notification when the turn ends; others see nothing new", async () => {
    const session = await createSession({ aware: remote(turnAware()), plain: remote(peers.fixture) });
    const started = await api("POST", `/v1/sessions/${session.id}/turns`);
    expect(started.status).toBe(201);
    const turnId = started.body.id;
    expect(turnId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);

    const aware = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "aware_turn_probe", turn: { id: turnId, actorId: "user-1" } });
    expect(JSON.parse(aware.body.output)).toEqual({ sessionId: session.id, turnId, actorId: "user-1" });
    const plain = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "plain_turn_probe", turn: turnId });
    expect(JSON.parse(plain.body.output)).toEqual({});

    const ended = await api("POST", `/v1/sessions/${session.id}/turns/${turnId}/end`, { status: "completed" });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ id: turnId, status: "completed", notified: ["aware"], timedOut: [], failed: [] });
    const events = JSON.parse((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "aware_turn_events" })).body.output);
    expect(events).toContainEqual({ kind: "end", params: { sessionId: session.id, turnId, status: "completed" } });
  });

  it("a stuck server is given up on after 1 s instead of holding the turn's end", async () => {
    const session = await createSession({ aware: remote(turnAware()) });
    const { id: turnId } = (await api("POST", `/v1/sessions/${session.id}/turns`)).body;
    expect((await fetch(`${peers.control}/pause/fixture`, { method: "POST" })).status).toBe(200);
    try {
      const started = Date.now();
      const ended = await api("POST", `/v1/sessions/${session.id}/turns/${turnId}/end`, { status: "cancelled" });
      expect(ended.body).toMatchObject({ status: "cancelled", notified: [], timedOut: ["aware"] });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      expect((await fetch(`${peers.control}/resume/fixture`, { method: "POST" })).status).toBe(200);
    }
  });

  it("a bad status is a 400", async () => {
    const session = await createSession({});
    expect((await api("POST", `/v1/sessions/${session.id}/turns/x/end`, { status: "done" })).status).toBe(400);
    expect((await api("POST", `/v1/sessions/${session.id}/turns/x/end`, {})).status).toBe(400);
  });
});
