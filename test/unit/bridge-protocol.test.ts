import { describe, expect, it } from "vitest";
import {
  BridgeFrameSchema,
  channelName,
  createFrameDecoder,
  encodeFrame,
  FRAME_CHUNK_CHARS,
  GatewayFrameSchema,
  MAX_PENDING_CHUNKED_FRAMES,
  type BridgeFrame,
} from "../../src/core/bridge-protocol.js";

let n = 0;
const ids = () => `f${++n}`;

describe("bridge protocol frames", () => {
  it("a small frame is one message and decodes back", () => {
    const frame: BridgeFrame = { type: "message", channel: "s/fs", message: { jsonrpc: "2.0", id: 1, result: {} } };
    const parts = encodeFrame(frame, ids);
    expect(parts).toHaveLength(1);
    expect(createFrameDecoder(BridgeFrameSchema).decode(parts[0]!)).toEqual({ kind: "frame", frame });
  });

  it("a 10 MB frame travels as chunks under the 1 MiB WebSocket limit and comes back intact", () => {
    const big = "é✓x".repeat(3_500_000);
    const frame: BridgeFrame = { type: "message", channel: "s/fs", message: { jsonrpc: "2.0", id: 7, result: { text: big } } };
    const parts = encodeFrame(frame, ids);
    expect(parts.length).toBeGreaterThan(10);
    for (const part of parts) expect(new TextEncoder().encode(part).length).toBeLessThan(1024 * 1024);
    const decoder = createFrameDecoder(BridgeFrameSchema);
    const results = parts.map((p) => decoder.decode(p));
    expect(results.slice(0, -1).every((r) => r.kind === "partial")).toBe(true);
    expect(results.at(-1)).toEqual({ kind: "frame", frame });
    expect(decoder.pendingFrames).toBe(0);
  });

  it("bad input is an invalid result, never a throw", () => {
    const decoder = createFrameDecoder(GatewayFrameSchema);
    expect(decoder.decode("not json").kind).toBe("invalid");
    expect(decoder.decode(JSON.stringify({ type: "open" })).kind).toBe("invalid");
    expect(decoder.decode(JSON.stringify({ type: "launch", command: "rm -rf /" })).kind).toBe("invalid");
    expect(decoder.decode(JSON.stringify({ type: "chunk", id: "x", seq: 3, last: false, data: "" })).kind).toBe("invalid");
  });

  it("chunks out of order and too many frames in flight are refused", () => {
    const decoder = createFrameDecoder(BridgeFrameSchema);
    expect(decoder.decode(JSON.stringify({ type: "chunk", id: "a", seq: 0, last: false, data: "{" })).kind).toBe("partial");
    expect(decoder.decode(JSON.stringify({ type: "chunk", id: "a", seq: 2, last: true, data: "}" })).kind).toBe("invalid");
    expect(decoder.pendingFrames).toBe(0);
    for (let i = 0; i < MAX_PENDING_CHUNKED_FRAMES; i++) {
      expect(decoder.decode(JSON.stringify({ type: "chunk", id: `p${i}`, seq: 0, last: false, data: "x" })).kind).toBe("partial");
    }
    expect(decoder.decode(JSON.stringify({ type: "chunk", id: "one-too-many", seq: 0, last: false, data: "x" })).kind).toBe("invalid");
  });

  it("the gateway can never send a command line: only named servers can be opened", () => {
    const frame = GatewayFrameSchema.safeParse({ type: "open", channel: "s/x", server: "fs", command: "bash" });
    expect(frame.success).toBe(true);
    expect(frame.success && "command" in frame.data).toBe(false);
  });

  it("channel names keep server names unambiguous", () => {
    expect(channelName("ses_1", "a/b", "n1")).toBe("ses_1/a%2Fb/n1");
    expect(FRAME_CHUNK_CHARS).toBeLessThan(1024 * 1024 / 3);
  });
});
