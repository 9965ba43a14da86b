/**
 * The wire protocol between the Node bridge and mcp-edge (version 1): JSON text frames
 * on one WebSocket per bridge. A *channel* is one (session, server) pair, i.e. one child
 * process on the bridge; MCP messages travel inside `message` frames untouched (ids,
 * `_meta`, progress, cancellation and server→client requests alike).
 *
 *   bridge → gateway: hello, opened, open_failed, message, closed
 *   gateway → bridge: welcome, open, message, close
 *
 * Workers refuse WebSocket messages over 1 MiB, so a frame whose JSON is larger is sent
 * as `chunk` frames (each under FRAME_CHUNK_CHARS) and reassembled on the other side.
 * Pure: shared by the Worker and the bridge.
 */
import { z } from "zod";

export const BRIDGE_PROTOCOL_VERSION = 1;
/** Characters of frame JSON per chunk: at most 768 KiB of UTF-8 even after escaping, under the 1 MiB limit. */
export const FRAME_CHUNK_CHARS = 256 * 1024;
/** The largest frame a reassembler accepts (a 10 MB tool result and then some). */
export const MAX_FRAME_CHARS = 64 * 1024 * 1024;
/** WebSocket close code the gateway uses when a newer connection of the same bridge replaced this one (the bridge stops). */
export const REPLACED_CLOSE_CODE = 4000;
/** Machine `closed.reason` values and what they mean for people. */
export const CLOSE_REASON_TEXT: Readonly<Record<string, string>> = {
  idle: "ended by the bridge after its idle timeout",
  backpressure: "ended by the bridge: the gateway could not keep up with its output",
};
/** Partly received chunked frames kept at once, per connection. */
export const MAX_PENDING_CHUNKED_FRAMES = 16;

const channel = z.string().min(1).max(512);
const jsonRpcMessage = z.record(z.string(), z.unknown());

export const ServerOfferSchema = z.object({
  name: z.string().min(1).max(128),
  description: z.string().max(2000).optional(),
  /** What `roots/list` answers for this server: the bridge's configured root, or the server's cwd (file:// URIs). */
  roots: z.array(z.string().max(4096)).max(64).optional(),
});
export type ServerOffer = z.infer<typeof ServerOfferSchema>;

export const ChildExitSchema = z.object({
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  stderr: z.string().max(8192),
  hostShutdown: z.boolean(),
});
export type ChildExitInfo = z.infer<typeof ChildExitSchema>;

export const BridgeFrameSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    version: z.number().int(),
    bridge: z.string().min(1).max(128),
    servers: z.array(ServerOfferSchema).max(1000),
    client: z.object({ name: z.string(), version: z.string() }).optional(),
  }),
  z.object({ type: z.literal("opened"), channel }),
  z.object({ type: z.literal("open_failed"), channel, error: z.string().max(10_000), exit: ChildExitSchema.optional() }),
  z.object({ type: z.literal("message"), channel, message: jsonRpcMessage }),
  z.object({ type: z.literal("closed"), channel, exit: ChildExitSchema.optional(), reason: z.string().max(10_000).optional() }),
]);
export type BridgeFrame = z.infer<typeof BridgeFrameSchema>;

export const GatewayFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("welcome"), bridge: z.string(), version: z.number().int() }),
  z.object({ type: z.literal("open"), channel, server: z.string().min(1), roots: z.array(z.string()).optional() }),
  z.object({ type: z.literal("message"), channel, message: jsonRpcMessage }),
  z.object({ type: z.literal("close"), channel }),
  z.object({ type: z.literal("error"), message: z.string() }),
]);
export type GatewayFrame = z.infer<typeof GatewayFrameSchema>;

const ChunkSchema = z.object({
  type: z.literal("chunk"),
  id: z.string().min(1).max(64),
  seq: z.number().int().min(0),
  last: z.boolean(),
  data: z.string(),
});

/** Serializes a frame into one or more WebSocket text messages. */
export function encodeFrame(frame: BridgeFrame | GatewayFrame, makeId: () => string): string[] {
  const json = JSON.stringify(frame);
  if (json.length <= FRAME_CHUNK_CHARS) return [json];
  const id = makeId();
  const out: string[] = [];
  for (let seq = 0, at = 0; at < json.length; seq++, at += FRAME_CHUNK_CHARS) {
    const data = json.slice(at, at + FRAME_CHUNK_CHARS);
    out.push(JSON.stringify({ type: "chunk", id, seq, last: at + FRAME_CHUNK_CHARS >= json.length, data }));
  }
  return out;
}

export type Decoded<T> = { kind: "frame"; frame: T } | { kind: "partial" } | { kind: "invalid"; error: string };

/**
 * Turns received text messages back into frames: whole frames at once, chunked ones once
 * their last chunk arrives. Bounded: frames over MAX_FRAME_CHARS, too many frames in
 * flight, or chunks out of order are errors, never unbounded memory.
 */
export function createFrameDecoder<T>(schema: z.ZodType<T>) {
  const pending = new Map<string, { next: number; parts: string[]; size: number }>();

  function parse(json: string): Decoded<T> {
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch {
      return { kind: "invalid", error: "frame is not JSON" };
    }
    // Most frames are not chunks: only parse as one what says it is one.
    if (typeof raw === "object" && raw !== null && (raw as { type?: unknown }).type === "chunk") {
      const chunk = ChunkSchema.safeParse(raw);
      if (!chunk.success) return { kind: "invalid", error: "bad chunk frame" };
      return collect(chunk.data);
    }
    const frame = schema.safeParse(raw);
    if (!frame.success) {
      const issue = frame.error.issues[0];
      return { kind: "invalid", error: `bad frame: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid"}` };
    }
    return { kind: "frame", frame: frame.data };
  }

  function collect(chunk: z.infer<typeof ChunkSchema>): Decoded<T> {
    let entry = pending.get(chunk.id);
    if (!entry) {
      if (chunk.seq !== 0) return { kind: "invalid", error: `chunk ${chunk.seq} of unknown frame ${chunk.id}` };
      if (pending.size >= MAX_PENDING_CHUNKED_FRAMES) return { kind: "invalid", error: "too many chunked frames in flight" };
      entry = { next: 0, parts: [], size: 0 };
      pending.set(chunk.id, entry);
    }
    if (chunk.seq !== entry.next) {
      pending.delete(chunk.id);
      return { kind: "invalid", error: `chunk ${chunk.seq} of frame ${chunk.id} out of order` };
    }
    entry.size += chunk.data.length;
    if (entry.size > MAX_FRAME_CHARS) {
      pending.delete(chunk.id);
      return { kind: "invalid", error: `frame ${chunk.id} is over ${MAX_FRAME_CHARS} characters` };
    }
    entry.parts.push(chunk.data);
    entry.next++;
    if (!chunk.last) return { kind: "partial" };
    pending.delete(chunk.id);
    return parse(entry.parts.join(""));
  }

  return {
    decode(text: string): Decoded<T> {
      return parse(text);
    },
    get pendingFrames(): number {
      return pending.size;
    },
  };
}

/**
 * A channel name for one connection of a (session, server) pair. Every (re)connection
 * gets a fresh one (`nonce`), so a reconnect after eviction never collides with the
 * channel it replaces while that one is still closing on the bridge.
 */
export function channelName(sessionId: string, server: string, nonce: string): string {
  return `${sessionId}/${encodeURIComponent(server)}/${nonce}`;
}
