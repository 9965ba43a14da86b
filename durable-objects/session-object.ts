/**
 * The session Durable Object: an `agents` Agent (WebSocket clients, scheduling and SQL
 * for the features that need them) that hands HTTP requests to the session's routes.
 * All session logic lives in `session.ts`.
 */
import { Agent, type Connection, type ConnectionContext } from "agents";
import { parseAllowedHosts } from "../src/core/allowed-hosts.js";
import { McpEdgeError, messageOf } from "../src/core/errors.js";
import type { Env } from "../src/env.js";
import { Session, type AuthorizationOutcome } from "./session.js";
import { ownedSessionRoutes, PRINCIPAL_HEADER } from "./session-routes.js";

export class SessionObject extends Agent<Env> {
  private readonly session = new Session({
    storage: this.ctx.storage,
    env: this.env,
    waitUntil: (promise) => this.ctx.waitUntil(promise),
  });
  private readonly routes = ownedSessionRoutes(this.session, { mcpAllowedHosts: parseAllowedHosts(this.env.MCP_ALLOWED_HOSTS) });
  /**
   * Whether any WebSocket may be open (hibernated ones included). Listing the Agent's
   * connections on every event cost 15% of a tool call's latency with nobody listening, so
   * events skip the broadcast while this is false. Never false while a socket is open:
   * counted at wake-up, on connect, and (conservatively, the closing one may still count) on close.
   */
  private socketsOpen = this.ctx.getWebSockets().length > 0;

  /** Events go to every WebSocket subscriber (hibernated sockets included: the Agent lists them). */
  readonly stopBroadcasting = this.session.events.listen((event) => {
    if (!this.socketsOpen) return;
    const text = JSON.stringify(event);
    for (const connection of this.getConnections()) {
      try {
        connection.send(text);
      } catch {
        // a socket closing under us; its close handler cleans up
      }
    }
  });

  /**
   * The event stream over a WebSocket (`GET /v1/sessions/:id/events` with an upgrade):
   * the same events as the SSE stream, one JSON object `{id,type,at,data}` per message,
   * resumable with `?lastEventId=`. Only the events path takes WebSockets.
   */
  override async onConnect(connection: Connection, ctx: ConnectionContext): Promise<void> {
    this.socketsOpen = true;
    const url = new URL(ctx.request.url);
    if (url.pathname !== "/events") {
      connection.close(1008, "WebSockets are served on /events only");
      return;
    }
    try {
      // The upgrade skips the session routes (the Agent takes it first), so ownership is
      // checked here: another principal's session closes like a missing one.
      const principal = ctx.request.headers.get(PRINCIPAL_HEADER);
      if (!principal) throw new McpEdgeError("sessionNotFound", "session not found");
      await this.session.requireOwnedBy(principal);
    } catch (error) {
      connection.close(4404, messageOf(error).slice(0, 120));
      return;
    }
    const raw = url.searchParams.get("lastEventId");
    const lastEventId = raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
    for (const event of this.session.events.since(lastEventId)) connection.send(JSON.stringify(event));
  }

  override async onClose(connection: Connection, code: number, reason: string, wasClean: boolean): Promise<void> {
    this.socketsOpen = this.ctx.getWebSockets().length > 0;
    await super.onClose(connection, code, reason, wasClean);
  }

  /** Events are one-way: the Agent's own protocol messages (state, identity) are not sent. */
  override shouldSendProtocolMessages(): boolean {
    return false;
  }

  override async onRequest(request: Request): Promise<Response> {
    return this.routes.fetch(request);
  }

  /** RPC from the Worker's `/oauth/callback`. */
  async completeAuthorization(nonce: string, params: { code?: string; error?: string }): Promise<AuthorizationOutcome> {
    return this.session.completeAuthorization(nonce, params);
  }

  // RPC from the principal's BridgeHub (bridged servers).

  async bridgeDeliver(channel: string, message: Record<string, unknown>): Promise<void> {
    this.session.bridgeDeliver(channel, message);
  }

  async bridgeChannelClosed(channel: string, reason: string, _offline: boolean): Promise<void> {
    this.session.bridgeChannelClosed(channel, reason);
  }

  async bridgeAvailable(bridge: string): Promise<void> {
    await this.session.bridgeAvailable(bridge);
  }
}
