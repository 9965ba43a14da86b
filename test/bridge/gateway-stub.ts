/**
 * A stand-in for the gateway's side of bridge protocol v1, until its Durable Object can be
 * run here: a `ws` WebSocketServer on 127.0.0.1:0 that checks the bearer token at the
 * upgrade (or refuses it with a chosen status), answers `hello` with `welcome`, and lets a
 * test send gateway frames and wait for the bridge's. Every frame goes through the real
 * encodeFrame / createFrameDecoder, so chunking is exercised both ways.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import {
  BRIDGE_PROTOCOL_VERSION,
  BridgeFrameSchema,
  createFrameDecoder,
  encodeFrame,
  type BridgeFrame,
  type GatewayFrame,
} from "../../src/core/bridge-protocol.js";
import { within } from "./helpers.js";

/** Items that arrive over time; waits look at what came already and at what comes next. */
export interface Recorder<T> {
  readonly items: readonly T[];
  push(item: T): void;
  waitFor<U extends T = T>(match: (item: T) => item is U, what: string, timeoutMs?: number): Promise<U>;
  waitFor(match: (item: T) => boolean, what: string, timeoutMs?: number): Promise<T>;
}

export function recorder<T>(): Recorder<T> {
  const items: T[] = [];
  const waiters = new Set<(item: T) => void>();
  return {
    items,
    push(item) {
      items.push(item);
      for (const wake of [...waiters]) wake(item);
    },
    async waitFor(match: (item: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
      const found = items.find(match);
      if (found !== undefined) return found;
      let wake: ((item: T) => void) | undefined;
      const seen = new Promise<T>((resolve) => {
        wake = (item) => {
          if (match(item)) resolve(item);
        };
        waiters.add(wake);
      });
      try {
        return await within(seen, timeoutMs, what);
      } finally {
        waiters.delete(wake!);
      }
    },
  } as Recorder<T>;
}

export type FrameOf<K extends BridgeFrame["type"]> = Extract<BridgeFrame, { type: K }>;

export interface StubConnection {
  /** The request path and query of the upgrade. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly frames: Recorder<BridgeFrame>;
  /** Byte sizes of the WebSocket messages the bridge sent. */
  readonly messageSizes: number[];
  readonly closed: Promise<{ code: number; reason: string }>;
  hello(): Promise<FrameOf<"hello">>;
  /** Sends a gateway frame; returns how many WebSocket messages it took. */
  send(frame: GatewayFrame): number;
  /** Sends raw text, for malformed input. */
  sendRaw(text: string): void;
  /** The first frame of `type` on `channel` (past or future). */
  frame<K extends BridgeFrame["type"]>(type: K, channel: string, timeoutMs?: number): Promise<FrameOf<K>>;
  /** Sends a JSON-RPC request in a message frame and waits for the response with its id. */
  request(channel: string, id: number | string, method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Ends the TCP connection at once, as a crash or network loss would. */
  drop(): void;
  close(code: number, reason: string): void;
}

export interface StubOptions {
  token?: string;
  /** An HTTP status to refuse upgrade number `attempt` (1-based) with, or undefined to accept it. */
  refuse?: (attempt: number) => number | undefined;
  /** The version sent in `welcome`. */
  welcomeVersion?: number;
  /** How to answer hello: welcome (the default), an error frame, or not at all. */
  onHello?: "welcome" | "silent" | { error: string };
  /** Answer pings (ws does by default); false plays a connection that died silently. */
  autoPong?: boolean;
}

export interface GatewayStub {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Upgrade requests seen, refused or not. */
  readonly upgrades: number;
  readonly connections: Recorder<StubConnection>;
  /** Connection number `index` (0-based), once it exists. */
  connection(index: number, timeoutMs?: number): Promise<StubConnection>;
  close(): Promise<void>;
}

export const STUB_TOKEN = "stub-bridge-token";
export const REFUSAL_MESSAGE = "a valid bridge token is required (Authorization: Bearer …)";

let frameIds = 0;

function accept(ws: WebSocket, path: string, headers: IncomingHttpHeaders, options: StubOptions): StubConnection {
  const decoder = createFrameDecoder(BridgeFrameSchema);
  const frames = recorder<BridgeFrame>();
  const messageSizes: number[] = [];
  const send = (frame: GatewayFrame): number => {
    const parts = encodeFrame(frame, () => `g${++frameIds}`);
    for (const part of parts) ws.send(part);
    return parts.length;
  };
  ws.on("message", (data, isBinary) => {
    const buffer = Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
    messageSizes.push(buffer.length);
    if (isBinary) throw new Error("the bridge sent a binary message");
    const decoded = decoder.decode(buffer.toString("utf8"));
    if (decoded.kind === "invalid") throw new Error(`the bridge sent an invalid frame: ${decoded.error}`);
    if (decoded.kind === "partial") return;
    if (decoded.frame.type === "hello") {
      const onHello = options.onHello ?? "welcome";
      if (onHello === "welcome") send({ type: "welcome", bridge: decoded.frame.bridge, version: options.welcomeVersion ?? BRIDGE_PROTOCOL_VERSION });
      else if (onHello !== "silent") send({ type: "error", message: onHello.error });
    }
    frames.push(decoded.frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  const frame = <K extends BridgeFrame["type"]>(type: K, channel: string, timeoutMs?: number): Promise<FrameOf<K>> =>
    frames.waitFor((f): f is FrameOf<K> => f.type === type && "channel" in f && f.channel === channel, `${type} on ${channel}`, timeoutMs);
  return {
    path,
    headers,
    frames,
    messageSizes,
    closed,
    hello: () => frames.waitFor((f): f is FrameOf<"hello"> => f.type === "hello", "hello"),
    send,
    sendRaw: (text) => ws.send(text),
    frame,
    async request(channel, id, method, params = {}, timeoutMs) {
      send({ type: "message", channel, message: { jsonrpc: "2.0", id, method, params } });
      const response = await frames.waitFor(
        (f) => f.type === "message" && f.channel === channel && f.message.id === id && !("method" in f.message),
        `response ${id} (${method}) on ${channel}`,
        timeoutMs,
      );
      return (response as FrameOf<"message">).message;
    },
    drop: () => ws.terminate(),
    close: (code, reason) => ws.close(code, reason),
  };
}

export async function startGatewayStub(options: StubOptions = {}): Promise<GatewayStub> {
  const token = options.token ?? STUB_TOKEN;
  const wss = new WebSocketServer({ noServer: true, autoPong: options.autoPong ?? true });
  const connections = recorder<StubConnection>();
  const sockets = new Set<WebSocket>();
  let upgrades = 0;
  const server: Server = createServer((_req, res) => {
    res.writeHead(426).end("expected a WebSocket upgrade");
  });
  server.on("upgrade", (req, socket, head) => {
    upgrades++;
    const authorized = req.headers.authorization === `Bearer ${token}`;
    const status = options.refuse?.(upgrades) ?? (authorized ? undefined : 401);
    if (status !== undefined) {
      const body = JSON.stringify({ error: { code: "unauthorized", message: REFUSAL_MESSAGE } });
      socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on("close", () => sockets.delete(ws));
      connections.push(accept(ws, req.url ?? "", req.headers, options));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get upgrades() {
      return upgrades;
    },
    connections,
    async connection(index, timeoutMs) {
      await connections.waitFor(() => connections.items.length > index, `connection #${index + 1}`, timeoutMs);
      return connections.items[index]!;
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
