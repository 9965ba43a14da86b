/**
 * The bridges of one principal: a Durable Object that holds their WebSockets
 * (hibernatable) and relays MCP messages between session objects and the child processes
 * the bridges run. A channel is one (session, server) pair; the hub remembers which
 * session owns which channel (in storage, so it survives hibernation) and talks to
 * sessions over RPC, in order per channel. When a bridge goes away, every channel on it
 * is closed at once ("bridge offline"), and its sessions hear when it is back.
 */
import { DurableObject } from "cloudflare:workers";
import {
  BRIDGE_PROTOCOL_VERSION,
  BridgeFrameSchema,
  CLOSE_REASON_TEXT,
  REPLACED_CLOSE_CODE,
  createFrameDecoder,
  encodeFrame,
  type BridgeFrame,
  type ChildExitInfo,
  type GatewayFrame,
  type ServerOffer,
} from "../src/core/bridge-protocol.js";
import { messageOf } from "../src/core/errors.js";
import type { Env } from "../src/env.js";
import type { SessionObject } from "./session-object.js";

export const BRIDGE_ID_HEADER = "x-mcp-edge-bridge-id";
/** How long an `open` may take on the bridge (spawn + start). */
export const OPEN_TIMEOUT_MS = 30_000;

interface BridgeAttachment {
  bridge: string;
  connectedAt: number;
  servers?: ServerOffer[];
  client?: { name: string; version: string };
}

interface ChannelRecord {
  session: string;
  bridge: string;
  server: string;
}

export type OpenResult = { ok: true; roots: string[] } | { ok: false; error: string; exit?: ChildExitInfo; offline?: boolean };

export interface BridgeSummary {
  id: string;
  connectedAt: string;
  servers: ServerOffer[];
  client?: { name: string; version: string };
}

const CHANNEL_PREFIX = "channel:";
/** Sessions that tried a bridge while it was offline: told when it connects. */
const WAITING_PREFIX = "waiting:";

export class BridgeHub extends DurableObject<Env> {
  private readonly decoders = new WeakMap<WebSocket, ReturnType<typeof createFrameDecoder<BridgeFrame>>>();
  private readonly pendingOpens = new Map<string, (result: OpenResult) => void>();
  /** Per-channel delivery chains, so messages reach a session in the order they came. */
  private readonly chains = new Map<string, Promise<void>>();
  private frameIds = 0;
  /** Channel records, mirrored from storage (the source of truth) to keep reads off the hot path. */
  private channelCache: Map<string, ChannelRecord> | undefined;
  private readonly sessionStubs = new Map<string, DurableObjectStub<SessionObject>>();

  // ── Bridges ──────────────────────────────────────────────────────────────

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
    const bridge = request.headers.get(BRIDGE_ID_HEADER);
    if (!bridge) return new Response("missing bridge id", { status: 400 });
    // One connection per bridge id: a reconnecting bridge replaces its stale socket.
    for (const old of this.ctx.getWebSockets(bridge)) {
      try {
        old.close(REPLACED_CLOSE_CODE, "replaced by a new connection");
      } catch {
        // already closing
      }
    }
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server, [bridge]);
    server.serializeAttachment({ bridge, connectedAt: Date.now() } satisfies BridgeAttachment);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, data: string | ArrayBuffer): Promise<void> {
    if (typeof data !== "string") return this.refuse(ws, "binary frames are not part of the protocol");
    let decoder = this.decoders.get(ws);
    if (!decoder) {
      decoder = createFrameDecoder(BridgeFrameSchema);
      this.decoders.set(ws, decoder);
    }
    const decoded = decoder.decode(data);
    if (decoded.kind === "partial") return;
    if (decoded.kind === "invalid") return this.refuse(ws, decoded.error);
    const attachment = ws.deserializeAttachment() as BridgeAttachment;
    const frame = decoded.frame;
    switch (frame.type) {
      case "hello": {
        if (frame.version !== BRIDGE_PROTOCOL_VERSION) return this.refuse(ws, `protocol version ${frame.version} is not supported (${BRIDGE_PROTOCOL_VERSION} is)`);
        if (frame.bridge !== attachment.bridge) return this.refuse(ws, `hello names bridge "${frame.bridge}" but the connection is for "${attachment.bridge}"`);
        ws.serializeAttachment({ ...attachment, servers: frame.servers, ...(frame.client ? { client: frame.client } : {}) } satisfies BridgeAttachment);
        this.sendFrame(ws, { type: "welcome", bridge: attachment.bridge, version: BRIDGE_PROTOCOL_VERSION });
        await this.notifySessionsOfReturn(attachment.bridge);
        return;
      }
      case "opened":
      case "open_failed": {
        const resolve = this.pendingOpens.get(frame.channel);
        if (!resolve) return;
        this.pendingOpens.delete(frame.channel);
        if (frame.type === "open_failed") {
          await this.forget(frame.channel);
          resolve({ ok: false, error: frame.error, ...(frame.exit ? { exit: frame.exit } : {}) });
        } else {
          const record = await this.record(frame.channel);
          const offer = attachment.servers?.find((s) => s.name === record?.server);
          resolve({ ok: true, roots: offer?.roots ?? [] });
        }
        return;
      }
      case "message": {
        const record = await this.record(frame.channel);
        if (!record || record.bridge !== attachment.bridge) return;
        this.enqueue(frame.channel, () => this.session(record.session).bridgeDeliver(frame.channel, frame.message));
        return;
      }
      case "closed": {
        const record = await this.record(frame.channel);
        if (!record || record.bridge !== attachment.bridge) return;
        await this.forget(frame.channel);
        const said = frame.reason === undefined ? undefined : (CLOSE_REASON_TEXT[frame.reason] ?? frame.reason);
        const reason = [said, frame.exit && !frame.exit.hostShutdown ? describeExit(frame.exit) : undefined].filter(Boolean).join("; ") || "the server closed";
        this.enqueue(frame.channel, () => this.session(record.session).bridgeChannelClosed(frame.channel, reason, false));
        return;
      }
    }
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    await this.bridgeGone(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.bridgeGone(ws);
  }

  /** Every channel on the bridge fails at once; the records stay so its sessions hear of its return. */
  private async bridgeGone(ws: WebSocket): Promise<void> {
    const attachment = ws.deserializeAttachment() as BridgeAttachment | null;
    if (!attachment) return;
    // A replaced socket closing must not take the new connection's channels down.
    if (this.ctx.getWebSockets(attachment.bridge).some((other) => other !== ws && other.readyState === WebSocket.READY_STATE_OPEN)) return;
    for (const [channel, record] of await this.records()) {
      if (record.bridge !== attachment.bridge) continue;
      this.pendingOpens.get(channel)?.({ ok: false, error: `bridge "${attachment.bridge}" went offline`, offline: true });
      this.pendingOpens.delete(channel);
      this.enqueue(channel, () =>
        this.session(record.session).bridgeChannelClosed(channel, `bridge "${attachment.bridge}" offline`, true),
      );
    }
  }

  private async notifySessionsOfReturn(bridge: string): Promise<void> {
    const sessions = new Set<string>();
    for (const [channel, record] of await this.records()) {
      if (record.bridge !== bridge) continue;
      sessions.add(record.session);
      await this.forget(channel);
    }
    const waiting = await this.ctx.storage.list({ prefix: `${WAITING_PREFIX}${bridge}\u0000` });
    for (const key of waiting.keys()) sessions.add(key.slice(`${WAITING_PREFIX}${bridge}\u0000`.length));
    await this.ctx.storage.delete([...waiting.keys()]);
    for (const session of sessions) {
      this.ctx.waitUntil(
        this.session(session)
          .bridgeAvailable(bridge)
          .catch((e: unknown) => console.warn("[bridge-hub] telling a session failed", messageOf(e))),
      );
    }
  }

  private refuse(ws: WebSocket, message: string): void {
    this.sendFrame(ws, { type: "error", message });
  }

  private sendFrame(ws: WebSocket, frame: GatewayFrame): void {
    for (const part of encodeFrame(frame, () => `g${++this.frameIds}`)) ws.send(part);
  }

  private socketOf(bridge: string): WebSocket | undefined {
    return this.ctx.getWebSockets(bridge).find((ws) => {
      const attachment = ws.deserializeAttachment() as BridgeAttachment | null;
      return ws.readyState === WebSocket.READY_STATE_OPEN && attachment?.servers !== undefined;
    });
  }

  // ── RPC from sessions and the Worker ─────────────────────────────────────

  async list(): Promise<BridgeSummary[]> {
    const out: BridgeSummary[] = [];
    for (const ws of this.ctx.getWebSockets()) {
      const attachment = ws.deserializeAttachment() as BridgeAttachment | null;
      if (!attachment?.servers || ws.readyState !== WebSocket.READY_STATE_OPEN) continue;
      out.push({
        id: attachment.bridge,
        connectedAt: new Date(attachment.connectedAt).toISOString(),
        servers: attachment.servers,
        ...(attachment.client ? { client: attachment.client } : {}),
      });
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async open(channel: string, session: string, bridge: string, server: string): Promise<OpenResult> {
    const ws = this.socketOf(bridge);
    if (!ws) {
      await this.ctx.storage.put(`${WAITING_PREFIX}${bridge}\u0000${session}`, true);
      return { ok: false, error: `bridge "${bridge}" is offline (not connected)`, offline: true };
    }
    const attachment = ws.deserializeAttachment() as BridgeAttachment;
    if (!attachment.servers?.some((s) => s.name === server)) {
      return { ok: false, error: `bridge "${bridge}" does not offer a server named "${server}" (it offers: ${attachment.servers?.map((s) => s.name).join(", ") || "none"})` };
    }
    this.pendingOpens.get(channel)?.({ ok: false, error: "superseded by a new open" });
    // The same session reconnecting the same server (e.g. after its object was evicted):
    // its old channel is ended on the bridge, so no process is left behind.
    const slot = channel.slice(0, channel.lastIndexOf("/") + 1);
    for (const [old, record] of await this.records()) {
      if (old === channel || !old.startsWith(slot) || record.session !== session) continue;
      await this.forget(old);
      const oldSocket = this.socketOf(record.bridge);
      if (oldSocket) this.sendFrame(oldSocket, { type: "close", channel: old });
    }
    await this.remember(channel, { session, bridge, server });
    const result = new Promise<OpenResult>((resolve) => {
      this.pendingOpens.set(channel, resolve);
      setTimeout(() => {
        if (this.pendingOpens.get(channel) !== resolve) return;
        this.pendingOpens.delete(channel);
        resolve({ ok: false, error: `bridge "${bridge}" did not start "${server}" within ${OPEN_TIMEOUT_MS} ms` });
      }, OPEN_TIMEOUT_MS);
    });
    this.sendFrame(ws, { type: "open", channel, server });
    return result;
  }

  async send(channel: string, message: Record<string, unknown>): Promise<void> {
    const record = await this.record(channel);
    const ws = record ? this.socketOf(record.bridge) : undefined;
    if (!record || !ws) throw new Error(`bridge channel ${channel} is offline`);
    this.sendFrame(ws, { type: "message", channel, message });
  }

  async close(channel: string): Promise<void> {
    const record = await this.record(channel);
    if (!record) return;
    await this.forget(channel);
    const ws = this.socketOf(record.bridge);
    if (ws) this.sendFrame(ws, { type: "close", channel });
  }

  // ── Channel records ──────────────────────────────────────────────────────

  private async record(channel: string): Promise<ChannelRecord | undefined> {
    return (await this.records()).get(channel);
  }

  /** Every channel record; loaded from storage once per instance (after a wake-up too). */
  private async records(): Promise<Map<string, ChannelRecord>> {
    if (!this.channelCache) {
      const raw = await this.ctx.storage.list<ChannelRecord>({ prefix: CHANNEL_PREFIX });
      this.channelCache ??= new Map([...raw].map(([key, value]) => [key.slice(CHANNEL_PREFIX.length), value]));
    }
    return this.channelCache;
  }

  private async remember(channel: string, record: ChannelRecord): Promise<void> {
    (await this.records()).set(channel, record);
    await this.ctx.storage.put(CHANNEL_PREFIX + channel, record);
  }

  private async forget(channel: string): Promise<void> {
    (await this.records()).delete(channel);
    await this.ctx.storage.delete(CHANNEL_PREFIX + channel);
  }

  private session(name: string): DurableObjectStub<SessionObject> {
    let stub = this.sessionStubs.get(name);
    if (!stub) {
      stub = this.env.SESSIONS.getByName(name);
      this.sessionStubs.set(name, stub);
    }
    return stub;
  }

  private enqueue(channel: string, deliver: () => Promise<unknown>): void {
    const next = (this.chains.get(channel) ?? Promise.resolve())
      .then(deliver)
      .then(
        () => undefined,
        (e: unknown) => console.warn("[bridge-hub] delivery to a session failed", messageOf(e)),
      );
    this.chains.set(channel, next);
    this.ctx.waitUntil(next);
    void next.then(() => {
      if (this.chains.get(channel) === next) this.chains.delete(channel);
    });
  }
}

function describeExit(exit: ChildExitInfo): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const tail = exit.stderr.trim().split("\n").slice(-3).join(" | ");
  return `the server process ended (${how})${tail ? `: ${tail}` : ""}`;
}
