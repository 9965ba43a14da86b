/**
 * What the bridge's link reports as it runs: connection state changes, refusals, and each
 * channel's life. Events are values (tests wait on them, the CLI prints them through
 * `describeLinkEvent`); nothing here sends or decides anything.
 */
import type { ChildExitInfo } from "../../src/core/bridge-protocol.js";

export type LinkEvent =
  | { type: "connecting"; url: string; attempt: number }
  | { type: "connected"; bridge: string; version: number }
  /** The socket closed (`welcomed`: after the handshake) or never opened; `retryInMs` is unset when the link ends instead. */
  | { type: "disconnected"; welcomed: boolean; code: number; reason: string; channelsClosed: number; retryInMs?: number }
  /** The gateway refused the upgrade with 401/403: the token is wrong or revoked. */
  | { type: "rejected"; status: number; message: string; retryInMs?: number }
  | { type: "gateway_error"; message: string }
  | { type: "invalid_frame"; error: string }
  | { type: "channel_opened"; channel: string; server: string; pid: number | undefined }
  | { type: "channel_open_failed"; channel: string; server: string; error: string }
  | { type: "channel_closed"; channel: string; server: string; exit?: ChildExitInfo; reason?: string }
  /** A frame for a channel the bridge does not have (closed meanwhile, or never opened): ignored. */
  | { type: "unknown_channel"; channel: string; frame: string }
  /** A message the child could not take (it is closing or gone): dropped. */
  | { type: "message_dropped"; channel: string; error: string }
  | { type: "stopped"; end: LinkEnd };

/** Why `BridgeLink.run()` returned. Only `stopped` is a normal end. */
export type LinkEnd =
  | { kind: "stopped" }
  /** 401/403 at the upgrade while `once` was set. */
  | { kind: "unauthorized"; status: number; message: string }
  /** The gateway speaks another protocol version; retrying cannot help. */
  | { kind: "incompatible"; message: string }
  /** The gateway closed this connection because another bridge connected with the same id. */
  | { kind: "replaced"; message: string }
  /** The connection failed or ended while `once` was set, or could not be attempted at all. */
  | { kind: "disconnected"; message: string };

function exitText(exit: ChildExitInfo | undefined): string {
  if (!exit) return "";
  const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  return ` (${how}${exit.hostShutdown ? ", closed by the bridge" : ""})`;
}

/** One log line per event. */
export function describeLinkEvent(event: LinkEvent): string {
  switch (event.type) {
    case "connecting":
      return `connecting to ${event.url}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`;
    case "connected":
      return `connected as bridge "${event.bridge}" (protocol v${event.version})`;
    case "disconnected": {
      const channels = event.channelsClosed > 0 ? `; closed ${event.channelsClosed} server process(es)` : "";
      const retry = event.retryInMs === undefined ? "" : `; retry in ${event.retryInMs} ms`;
      if (!event.welcomed) return `cannot connect: ${event.reason || `closed with ${event.code}`}${channels}${retry}`;
      return `disconnected (${event.code}${event.reason ? ` ${event.reason}` : ""})${channels}${retry}`;
    }
    case "rejected": {
      const retry = event.retryInMs === undefined ? "" : `; retry in ${event.retryInMs} ms`;
      return `the gateway refused the bridge token (HTTP ${event.status}${event.message ? `: ${event.message}` : ""}): check --token / MCP_EDGE_BRIDGE_TOKEN${retry}`;
    }
    case "gateway_error":
      return `gateway error: ${event.message}`;
    case "invalid_frame":
      return `ignored an invalid frame from the gateway: ${event.error}`;
    case "channel_opened":
      return `[${event.channel}] started "${event.server}"${event.pid === undefined ? "" : ` (pid ${event.pid})`}`;
    case "channel_open_failed":
      return `[${event.channel}] could not start "${event.server}": ${event.error}`;
    case "channel_closed":
      return `[${event.channel}] "${event.server}" ended${exitText(event.exit)}${event.reason ? `: ${event.reason}` : ""}`;
    case "unknown_channel":
      return `ignored a ${event.frame} frame for unknown channel ${event.channel}`;
    case "message_dropped":
      return `[${event.channel}] dropped a message from the gateway: ${event.error}`;
    case "stopped":
      return event.end.kind === "stopped" ? "stopped" : `stopped: ${event.end.message}`;
  }
}
