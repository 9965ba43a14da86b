/**
 * One channel: a (session, server) pair on the gateway, one server process here. MCP
 * messages pass through untouched in both directions; the channel only starts the
 * process, reports how it ended, and ends it when asked, when idle, or when the socket
 * cannot take its output fast enough.
 *
 * States: opening → open → closing → closed
 *   opening → open       the process started: `opened` sent
 *   opening → closed     it could not start: `open_failed` sent
 *   open → closing       close(reason): the gateway's close, idle, backpressure, the socket dropped, bridge stop
 *   open | closing → closed  the process ended: `closed` sent, with how it ended and why
 * A close asked for while opening waits for the start, so every `open` gets exactly one
 * `opened` or `open_failed`, and every opened channel exactly one `closed` (while the
 * socket lasts: once it is gone nothing can be sent, and the gateway fails the channel).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { BridgeFrame, ChildExitInfo } from "../../src/core/bridge-protocol.js";
import { messageOf } from "../../src/core/errors.js";
import type { BridgeServer } from "./config.js";
import { BridgeError, type ChildExit } from "./errors.js";
import type { LinkEvent } from "./link-events.js";
import type { ObservingStdioTransport } from "./observing-stdio-transport.js";
import { redactText } from "./redact.js";

/** A channel with no message either way for this long is closed (reason "idle"). */
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;
/** The protocol's cap on `exit.stderr`. */
export const WIRE_STDERR_CHARS = 8_192;
/** The protocol's cap on `error` and `reason`. */
export const WIRE_REASON_CHARS = 10_000;

/** `reason` values of `closed` frames that the gateway can act on; any other reason is text for people. */
export const CloseReasons = {
  idle: "idle",
  backpressure: "backpressure",
} as const;

/** What happened to a frame handed to the link: `overflow` only for bounded (message) frames. */
export type SendResult = "sent" | "overflow" | "gone";

export type ChannelState = "opening" | "open" | "closing" | "closed";

export interface ChannelOptions {
  id: string;
  server: BridgeServer;
  /** Sends a frame on the channel's own connection; `gone` once that connection has closed. */
  send(frame: BridgeFrame): SendResult;
  onEvent(event: LinkEvent): void;
  /** Called once, when the process has ended or never started. */
  onEnded(channel: BridgeChannel): void;
  createTransport(server: BridgeServer): ObservingStdioTransport;
  /** 0 turns the idle timeout off. */
  idleTimeoutMs: number;
  now?: () => number;
}

/** How a process ended, as it may cross the wire: stderr redacted and capped. */
export function wireExit(exit: ChildExit): ChildExitInfo {
  return { code: exit.code, signal: exit.signal, stderr: redactText(exit.stderrTail).slice(-WIRE_STDERR_CHARS), hostShutdown: exit.hostShutdown };
}

function clip(text: string): string {
  return text.length <= WIRE_REASON_CHARS ? text : `${text.slice(0, WIRE_REASON_CHARS - 1)}…`;
}

export class BridgeChannel {
  readonly id: string;
  readonly server: BridgeServer;

  readonly #options: ChannelOptions;
  readonly #now: () => number;
  #state: ChannelState = "opening";
  #transport: ObservingStdioTransport | undefined;
  /** Why the bridge ended it; the first reason wins. */
  #closeReason: string | undefined;
  #closeRequested = false;
  /** Writes to the child, in order, each after the previous one drained. */
  #writes: Promise<unknown> = Promise.resolve();
  #lastActivity = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  readonly #ended: Promise<void>;
  #resolveEnded!: () => void;

  constructor(options: ChannelOptions) {
    this.id = options.id;
    this.server = options.server;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  get state(): ChannelState {
    return this.#state;
  }

  get pid(): number | undefined {
    return this.#transport?.pid;
  }

  /** Resolves once the process has ended (or never started) and the channel reported it. */
  get ended(): Promise<void> {
    return this.#ended;
  }

  /** Starts the process; answers with `opened` or `open_failed`. Never rejects. */
  async open(): Promise<void> {
    const transport = this.#options.createTransport(this.server);
    this.#transport = transport;
    transport.onmessage = (message) => this.#fromChild(message);
    transport.onerror = (error) => {
      // An oversized line ends the channel (the transport closes itself); say why.
      if (BridgeError.is(error) && error.code === "messageTooLarge") this.#closeReason ??= error.message;
    };
    transport.onclose = () => this.#onTransportClosed();
    const started = transport.start();
    // Messages that arrive while the process starts wait for it.
    this.#writes = started.catch(() => undefined);
    try {
      await started;
    } catch (error) {
      this.#state = "closed";
      const message = clip(messageOf(error));
      this.#options.send({ type: "open_failed", channel: this.id, error: message });
      this.#options.onEvent({ type: "channel_open_failed", channel: this.id, server: this.server.name, error: message });
      this.#end();
      return;
    }
    // The process can only have ended in a later turn of the event loop, but be sure.
    if (this.#state !== "opening") return;
    this.#state = "open";
    this.#options.send({ type: "opened", channel: this.id });
    this.#options.onEvent({ type: "channel_opened", channel: this.id, server: this.server.name, pid: transport.pid });
    this.#touch();
    this.#armIdle();
    if (this.#closeRequested) void this.close(this.#closeReason);
  }

  /** A message from the gateway, written to the child's stdin as it is. */
  deliver(message: Record<string, unknown>): void {
    const transport = this.#transport;
    if (!transport || this.#state === "closing" || this.#state === "closed") {
      this.#options.onEvent({ type: "message_dropped", channel: this.id, error: `server "${this.server.name}" is ${this.#state}` });
      return;
    }
    this.#touch();
    this.#writes = this.#writes
      .then(() => transport.send(message as JSONRPCMessage))
      .catch((error: unknown) => {
        this.#options.onEvent({ type: "message_dropped", channel: this.id, error: messageOf(error) });
      });
  }

  /**
   * Ends the process (stdin end, SIGTERM, SIGKILL); `closed` follows with `reason` when
   * given (a close the gateway asked for has none). Resolves once it has ended.
   */
  close(reason?: string): Promise<void> {
    if (reason !== undefined) this.#closeReason ??= reason;
    switch (this.#state) {
      case "opening":
        this.#closeRequested = true;
        return this.#ended;
      case "open":
        this.#state = "closing";
        clearTimeout(this.#idleTimer);
        void this.#transport?.close();
        return this.#ended;
      case "closing":
      case "closed":
        return this.#ended;
    }
  }

  #fromChild(message: JSONRPCMessage): void {
    this.#touch();
    const sent = this.#options.send({ type: "message", channel: this.id, message: message as Record<string, unknown> });
    if (sent === "overflow") void this.close(CloseReasons.backpressure);
  }

  #onTransportClosed(): void {
    const transport = this.#transport!;
    const exit = transport.exit ? wireExit(transport.exit) : undefined;
    const reasonText = this.#closeReason ?? transport.failure?.message;
    const reason = reasonText === undefined ? undefined : clip(reasonText);
    const wasOpening = this.#state === "opening";
    this.#state = "closed";
    clearTimeout(this.#idleTimer);
    if (wasOpening) {
      const error = reason ?? `server "${this.server.name}" ended while starting`;
      this.#options.send({ type: "open_failed", channel: this.id, error, ...(exit ? { exit } : {}) });
      this.#options.onEvent({ type: "channel_open_failed", channel: this.id, server: this.server.name, error });
    } else {
      this.#options.send({ type: "closed", channel: this.id, ...(exit ? { exit } : {}), ...(reason === undefined ? {} : { reason }) });
      this.#options.onEvent({ type: "channel_closed", channel: this.id, server: this.server.name, ...(exit ? { exit } : {}), ...(reason === undefined ? {} : { reason }) });
    }
    this.#end();
  }

  #end(): void {
    this.#options.onEnded(this);
    this.#resolveEnded();
  }

  #touch(): void {
    this.#lastActivity = this.#now();
  }

  /** One timer per channel, re-armed for the remainder when traffic moved the deadline. */
  #armIdle(): void {
    const idleMs = this.#options.idleTimeoutMs;
    if (idleMs <= 0 || this.#state !== "open") return;
    const remaining = this.#lastActivity + idleMs - this.#now();
    this.#idleTimer = setTimeout(
      () => {
        if (this.#state !== "open") return;
        if (this.#now() - this.#lastActivity >= idleMs) void this.close(CloseReasons.idle);
        else this.#armIdle();
      },
      Math.max(remaining, 1),
    );
    this.#idleTimer.unref();
  }
}
