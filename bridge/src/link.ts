/**
 * The bridge's link to mcp-edge: one WebSocket dialled out to
 * `{gateway}/v1/bridges/connect?bridge=<id>` with the bridge token, speaking protocol v1
 * (src/core/bridge-protocol.ts). It offers the configured servers in `hello`, starts one
 * only when the gateway opens a channel naming it (never a command from the wire), and
 * relays MCP messages verbatim. When the socket drops every channel's process is closed
 * (the gateway fails their requests at once on its side) and the link dials again with
 * capped, jittered backoff; a refused token is reported and retried the same way, or
 * ends the link with `once`.
 *
 * States: idle → connecting → ready → waiting → connecting … → stopped
 *   idle → connecting              run()
 *   connecting → ready             `welcome` received (after our `hello`)
 *   connecting | ready → waiting   the socket closed or never opened; a retry is scheduled
 *   waiting → connecting           the retry timer fired
 *   any → stopped                  stop(); with `once`, any failure or drop; a protocol version
 *                                  mismatch; another bridge taking this id (REPLACED_CLOSE_CODE)
 * Every socket callback checks that it belongs to the current connection before acting.
 */
import type { IncomingMessage } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import WebSocket, { type RawData } from "ws";
import {
  BRIDGE_PROTOCOL_VERSION,
  createFrameDecoder,
  encodeFrame,
  GatewayFrameSchema,
  type BridgeFrame,
  type GatewayFrame,
  type ServerOffer,
  REPLACED_CLOSE_CODE,
} from "../../src/core/bridge-protocol.js";
import { messageOf } from "../../src/core/errors.js";
import { redactUrl } from "../../src/core/url-policy.js";
import { createBackoff, type Backoff, type BackoffOptions } from "./backoff.js";
import { BridgeChannel, DEFAULT_IDLE_TIMEOUT_MS, type SendResult } from "./channel.js";
import { buildChildEnv } from "./child-env.js";
import type { BridgeServer } from "./config.js";
import { gatewayConnectUrl } from "./gateway-url.js";
import type { LinkEnd, LinkEvent } from "./link-events.js";
import { ObservingStdioTransport, type ObservingStdioOptions } from "./observing-stdio-transport.js";

export const BRIDGE_CLIENT_NAME = "mcp-edge-bridge";
/** Bytes the socket may hold unsent; a channel whose output would go past it is closed ("backpressure"). */
export const DEFAULT_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** Opening handshake (TCP, TLS, HTTP upgrade). */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000;
/** From the socket opening to the gateway's `welcome`. */
export const DEFAULT_WELCOME_TIMEOUT_MS = 10_000;
/** A ping this often; a socket that has not answered the previous one (nor sent anything) is dead. 0 turns it off. */
export const DEFAULT_PING_INTERVAL_MS = 30_000;
/** Server processes running at once for the gateway. */
export const DEFAULT_MAX_CHANNELS = 100;
/** Gateway frames are chunked under 1 MiB; a far larger WebSocket message is a broken peer. */
export const MAX_INCOMING_MESSAGE_BYTES = 4 * 1024 * 1024;
/**
 * The close code with which the gateway ends a bridge's socket when another connection
 * with the same bridge id replaces it. The bridge's own reconnects never see it (their old
 * socket is already gone), so on a live socket it means a second bridge took the id:
 * reconnecting would only take it back, forever.
 */
export { REPLACED_CLOSE_CODE };
/** How much of a refused upgrade's body is read for its message, and for how long. */
const REFUSAL_BODY_CHARS = 2_000;
const REFUSAL_BODY_MS = 2_000;
const SHOWN_REFUSAL_CHARS = 300;

export const LinkStates = {
  idle: "idle",
  connecting: "connecting",
  ready: "ready",
  waiting: "waiting",
  stopped: "stopped",
} as const;
export type LinkState = (typeof LinkStates)[keyof typeof LinkStates];

export interface BridgeLinkOptions {
  /** The gateway's base URL (http, https, ws or wss). */
  gateway: string;
  bridgeId: string;
  token: string;
  /** The only servers the gateway can open, by name. */
  servers: readonly BridgeServer[];
  /** This bridge's version, sent in `hello`. */
  clientVersion: string;
  /** No retries: a refused token, a failed connection or a drop ends run(). */
  once?: boolean;
  /** Per channel; 0 turns it off. */
  idleTimeoutMs?: number;
  /** Inherited variables kept from children (globs); default: DEFAULT_DENY_PATTERNS. */
  denyEnv?: readonly string[];
  maxBufferedBytes?: number;
  maxChannels?: number;
  handshakeTimeoutMs?: number;
  welcomeTimeoutMs?: number;
  pingIntervalMs?: number;
  backoff?: BackoffOptions;
  onEvent?: (event: LinkEvent) => void;
  /** The root offered for servers without a cwd; process.cwd() by default. */
  cwd?: string;
  /** What children inherit (before the deny list); process.env by default. */
  parentEnv?: Readonly<Record<string, string | undefined>>;
  /** For every server process: grace periods, the child registry. */
  transport?: Omit<ObservingStdioOptions, "name">;
  now?: () => number;
}

interface Connection {
  readonly ws: WebSocket;
  readonly decoder: ReturnType<typeof createFrameDecoder<GatewayFrame>>;
  readonly channels: Map<string, BridgeChannel>;
  welcomed: boolean;
  /** 401/403 at the upgrade. */
  refused?: { status: number; message: string };
  /** The first error the socket reported (ECONNREFUSED, an unexpected status). */
  error?: string;
  alive: boolean;
  welcomeTimer?: NodeJS.Timeout;
  heartbeat?: NodeJS.Timeout;
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

/** The gateway's error body (`{"error":{"message"}}`) or the start of its text, on one line. */
function refusalMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === "string") return message.slice(0, SHOWN_REFUSAL_CHARS);
  } catch {
    // not JSON: show the text
  }
  return body.replace(/\s+/g, " ").trim().slice(0, SHOWN_REFUSAL_CHARS);
}

export class BridgeLink {
  readonly url: URL;

  readonly #options: BridgeLinkOptions;
  readonly #servers: ReadonlyMap<string, BridgeServer>;
  readonly #backoff: Backoff;
  readonly #idleTimeoutMs: number;
  readonly #maxBufferedBytes: number;
  readonly #maxChannels: number;
  #state: LinkState = LinkStates.idle;
  #conn: Connection | undefined;
  /** Connection attempts since the last welcome. */
  #attempt = 0;
  #frameIds = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Channels still ending, from this and earlier connections. */
  readonly #ending = new Set<Promise<void>>();
  #stopping: Promise<void> | undefined;
  readonly #done: Promise<LinkEnd>;
  #resolveDone!: (end: LinkEnd) => void;

  constructor(options: BridgeLinkOptions) {
    const url = gatewayConnectUrl(options.gateway, options.bridgeId);
    if (!url.ok) throw new TypeError(url.error);
    this.url = url.url;
    this.#options = options;
    this.#servers = new Map(options.servers.map((s) => [s.name, s]));
    this.#backoff = createBackoff({ now: options.now, ...options.backoff });
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#maxChannels = options.maxChannels ?? DEFAULT_MAX_CHANNELS;
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  get state(): LinkState {
    return this.#state;
  }

  /** Channels of the current connection, by id (a snapshot). */
  get channels(): ReadonlyMap<string, { server: string; state: string; pid: number | undefined }> {
    const out = new Map<string, { server: string; state: string; pid: number | undefined }>();
    for (const [id, ch] of this.#conn?.channels ?? []) out.set(id, { server: ch.server.name, state: ch.state, pid: ch.pid });
    return out;
  }

  /** What `hello` offers. */
  offers(): ServerOffer[] {
    const cwd = this.#options.cwd ?? process.cwd();
    return [...this.#servers.values()].map((server) => ({
      name: server.name,
      roots: [pathToFileURL(path.resolve(cwd, server.cwd ?? ".")).href],
    }));
  }

  /** Connects and keeps connecting until stopped; resolves with why it ended. */
  run(): Promise<LinkEnd> {
    if (this.#state === LinkStates.idle) this.#connect();
    return this.#done;
  }

  /** Closes the socket first, then every server process; resolves once they have ended. */
  stop(): Promise<void> {
    return this.#finish({ kind: "stopped" });
  }

  #emit(event: LinkEvent): void {
    this.#options.onEvent?.(event);
  }

  #connect(): void {
    this.#state = LinkStates.connecting;
    this.#attempt++;
    this.#emit({ type: "connecting", url: redactUrl(this.url.href), attempt: this.#attempt });
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url, {
        headers: { Authorization: `Bearer ${this.#options.token}` },
        handshakeTimeout: this.#options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
        maxPayload: MAX_INCOMING_MESSAGE_BYTES,
        // Predictable memory and bufferedAmount; frames are JSON the gateway reads at once.
        perMessageDeflate: false,
        followRedirects: false,
      });
    } catch (error) {
      // Synchronous: a request that cannot be made at all (a token with a control character). Retrying cannot help.
      void this.#finish({ kind: "disconnected", message: `cannot connect to the gateway: ${messageOf(error)}` });
      return;
    }
    const conn: Connection = { ws, decoder: createFrameDecoder(GatewayFrameSchema), channels: new Map(), welcomed: false, alive: true };
    this.#conn = conn;
    ws.on("unexpected-response", (_req, res) => this.#onRefused(conn, res));
    ws.on("open", () => this.#onOpen(conn));
    ws.on("message", (data, isBinary) => this.#onMessage(conn, data, isBinary));
    ws.on("pong", () => {
      conn.alive = true;
    });
    ws.on("error", (error) => {
      conn.error ??= messageOf(error);
    });
    ws.on("close", (code, reason) => this.#onClose(conn, code, reason.toString("utf8")));
  }

  /** A non-101 answer to the upgrade: remember the status and the gateway's message, then end the attempt. */
  #onRefused(conn: Connection, res: IncomingMessage): void {
    const status = res.statusCode ?? 0;
    let body = "";
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const message = refusalMessage(body);
      if (status === 401 || status === 403) conn.refused = { status, message };
      else conn.error = `HTTP ${status}${message ? `: ${message}` : ""}`;
      conn.ws.terminate();
    };
    const timer = setTimeout(settle, REFUSAL_BODY_MS);
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      if (body.length < REFUSAL_BODY_CHARS) body += chunk.slice(0, REFUSAL_BODY_CHARS - body.length);
    });
    res.once("end", settle);
    res.once("error", settle);
    res.once("close", settle);
  }

  #onOpen(conn: Connection): void {
    if (conn !== this.#conn || this.#state === LinkStates.stopped) return;
    this.#send(conn, {
      type: "hello",
      version: BRIDGE_PROTOCOL_VERSION,
      bridge: this.#options.bridgeId,
      servers: this.offers(),
      client: { name: BRIDGE_CLIENT_NAME, version: this.#options.clientVersion },
    });
    const welcomeMs = this.#options.welcomeTimeoutMs ?? DEFAULT_WELCOME_TIMEOUT_MS;
    conn.welcomeTimer = setTimeout(() => {
      conn.error = `no welcome from the gateway within ${welcomeMs} ms`;
      conn.ws.terminate();
    }, welcomeMs);
    const pingMs = this.#options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    if (pingMs > 0) {
      conn.heartbeat = setInterval(() => {
        if (!conn.alive) {
          conn.error = `no answer to a ping within ${pingMs} ms`;
          conn.ws.terminate();
          return;
        }
        conn.alive = false;
        conn.ws.ping();
      }, pingMs);
    }
  }

  #onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    if (conn !== this.#conn || this.#state === LinkStates.stopped) return;
    conn.alive = true;
    if (isBinary) {
      this.#emit({ type: "invalid_frame", error: "binary message (frames are text)" });
      return;
    }
    const decoded = conn.decoder.decode(rawText(data));
    if (decoded.kind === "partial") return;
    if (decoded.kind === "invalid") {
      this.#emit({ type: "invalid_frame", error: decoded.error });
      return;
    }
    this.#onFrame(conn, decoded.frame);
  }

  #onFrame(conn: Connection, frame: GatewayFrame): void {
    if (!conn.welcomed) {
      switch (frame.type) {
        case "welcome":
          this.#onWelcome(conn, frame);
          return;
        case "error":
          // The gateway refused our hello (version, bridge id): say so now rather than at the welcome timeout.
          this.#emit({ type: "gateway_error", message: frame.message });
          conn.error = `the gateway refused hello: ${frame.message}`;
          conn.ws.terminate();
          return;
        default:
          conn.error = `the gateway sent ${frame.type} before welcome`;
          this.#emit({ type: "invalid_frame", error: conn.error });
          conn.ws.terminate();
          return;
      }
    }
    switch (frame.type) {
      case "welcome":
        this.#emit({ type: "invalid_frame", error: "a second welcome" });
        return;
      case "error":
        this.#emit({ type: "gateway_error", message: frame.message });
        return;
      case "open":
        this.#open(conn, frame.channel, frame.server);
        return;
      case "message": {
        const channel = conn.channels.get(frame.channel);
        if (channel) channel.deliver(frame.message);
        else this.#emit({ type: "unknown_channel", channel: frame.channel, frame: frame.type });
        return;
      }
      case "close": {
        const channel = conn.channels.get(frame.channel);
        if (channel) void channel.close();
        else this.#emit({ type: "unknown_channel", channel: frame.channel, frame: frame.type });
        return;
      }
    }
  }

  #onWelcome(conn: Connection, frame: Extract<GatewayFrame, { type: "welcome" }>): void {
    clearTimeout(conn.welcomeTimer);
    if (frame.version !== BRIDGE_PROTOCOL_VERSION) {
      const message = `the gateway speaks bridge protocol v${frame.version}, this bridge v${BRIDGE_PROTOCOL_VERSION}: update mcp-edge-bridge`;
      void this.#finish({ kind: "incompatible", message });
      return;
    }
    conn.welcomed = true;
    this.#state = LinkStates.ready;
    this.#attempt = 0;
    this.#backoff.connected();
    this.#emit({ type: "connected", bridge: frame.bridge, version: frame.version });
  }

  #open(conn: Connection, id: string, serverName: string): void {
    const refuse = (error: string): void => {
      this.#send(conn, { type: "open_failed", channel: id, error });
      this.#emit({ type: "channel_open_failed", channel: id, server: serverName, error });
    };
    if (conn.channels.has(id)) return refuse(`channel ${id} is already open`);
    const server = this.#servers.get(serverName);
    if (!server) {
      const known = [...this.#servers.keys()].map((n) => JSON.stringify(n)).join(", ");
      return refuse(`server ${JSON.stringify(serverName)} is not offered by bridge "${this.#options.bridgeId}" (it offers ${known || "none"})`);
    }
    if (conn.channels.size >= this.#maxChannels) return refuse(`bridge "${this.#options.bridgeId}" runs at most ${this.#maxChannels} servers at once`);
    const channel = new BridgeChannel({
      id,
      server,
      idleTimeoutMs: this.#idleTimeoutMs,
      now: this.#options.now,
      send: (frame) => this.#send(conn, frame),
      onEvent: (event) => this.#emit(event),
      onEnded: (ended) => {
        if (conn.channels.get(id) === ended) conn.channels.delete(id);
      },
      createTransport: (s) => this.#createTransport(s),
    });
    conn.channels.set(id, channel);
    this.#track(channel.ended);
    void channel.open();
  }

  #createTransport(server: BridgeServer): ObservingStdioTransport {
    const env = buildChildEnv({
      parentEnv: this.#options.parentEnv ?? process.env,
      serverEnv: server.env,
      ...(this.#options.denyEnv ? { denyPatterns: this.#options.denyEnv } : {}),
    });
    return new ObservingStdioTransport({ command: server.command, args: server.args, env, cwd: server.cwd }, { ...this.#options.transport, name: server.name });
  }

  /**
   * Sends a frame on `conn` (chunked when large). A `message` frame that would take the
   * socket's unsent bytes past maxBufferedBytes is not sent: `overflow`.
   */
  #send(conn: Connection, frame: BridgeFrame): SendResult {
    if (conn !== this.#conn || conn.ws.readyState !== WebSocket.OPEN) return "gone";
    const parts = encodeFrame(frame, () => `b${++this.#frameIds}`).map((part) => Buffer.from(part, "utf8"));
    if (frame.type === "message") {
      const size = parts.reduce((sum, part) => sum + part.length, 0);
      if (conn.ws.bufferedAmount + size > this.#maxBufferedBytes) return "overflow";
    }
    for (const part of parts) conn.ws.send(part, { binary: false });
    return "sent";
  }

  #track(ending: Promise<void>): void {
    this.#ending.add(ending);
    void ending.then(() => this.#ending.delete(ending));
  }

  /** Ends every channel of `conn`; returns how many there were. */
  #closeChannels(conn: Connection, reason: string): number {
    const channels = [...conn.channels.values()];
    for (const channel of channels) void channel.close(reason);
    return channels.length;
  }

  #onClose(conn: Connection, code: number, reason: string): void {
    clearTimeout(conn.welcomeTimer);
    clearInterval(conn.heartbeat);
    const closed = this.#closeChannels(conn, "the connection to the gateway closed");
    if (conn !== this.#conn || this.#state === LinkStates.stopped) return;
    this.#backoff.disconnected();
    const once = this.#options.once === true;
    if (conn.refused) {
      const { status, message } = conn.refused;
      if (once) {
        this.#emit({ type: "rejected", status, message });
        void this.#finish({ kind: "unauthorized", status, message: `the gateway refused the bridge token (HTTP ${status}${message ? `: ${message}` : ""})` });
        return;
      }
      const retryInMs = this.#backoff.nextDelay();
      this.#emit({ type: "rejected", status, message, retryInMs });
      this.#scheduleRetry(retryInMs);
      return;
    }
    const why = reason || conn.error || "";
    if (conn.welcomed && code === REPLACED_CLOSE_CODE) {
      this.#emit({ type: "disconnected", welcomed: conn.welcomed, code, reason: why, channelsClosed: closed });
      void this.#finish({ kind: "replaced", message: `another bridge connected as "${this.#options.bridgeId}" and replaced this one; give each bridge its own --id` });
      return;
    }
    if (once) {
      this.#emit({ type: "disconnected", welcomed: conn.welcomed, code, reason: why, channelsClosed: closed });
      const message = conn.welcomed ? `the connection to the gateway closed (${code}${why ? ` ${why}` : ""})` : `cannot connect to the gateway: ${why || `closed with ${code}`}`;
      void this.#finish({ kind: "disconnected", message });
      return;
    }
    const retryInMs = this.#backoff.nextDelay();
    this.#emit({ type: "disconnected", welcomed: conn.welcomed, code, reason: why, channelsClosed: closed, retryInMs });
    this.#scheduleRetry(retryInMs);
  }

  #scheduleRetry(delayMs: number): void {
    this.#state = LinkStates.waiting;
    this.#retryTimer = setTimeout(() => {
      if (this.#state === LinkStates.waiting) this.#connect();
    }, delayMs);
  }

  #finish(end: LinkEnd): Promise<void> {
    if (this.#stopping) return this.#stopping;
    this.#state = LinkStates.stopped;
    clearTimeout(this.#retryTimer);
    const conn = this.#conn;
    if (conn) {
      clearTimeout(conn.welcomeTimer);
      clearInterval(conn.heartbeat);
      // The socket first: the gateway fails in-flight requests at once instead of waiting for each child.
      if (conn.ws.readyState === WebSocket.OPEN) conn.ws.close(1001, "bridge stopping");
      else conn.ws.terminate();
      this.#closeChannels(conn, "the bridge is stopping");
    }
    this.#stopping = Promise.allSettled([...this.#ending]).then(() => {
      this.#emit({ type: "stopped", end });
      this.#resolveDone(end);
    });
    return this.#stopping;
  }
}
