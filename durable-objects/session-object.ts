/**
 * The session Durable Object: an `agents` Agent (WebSocket clients, scheduling and SQL
 * for the features that need them) that hands HTTP requests to the session's routes.
 * All session logic lives in `session.ts`.
 */
import { Agent } from "agents";
import type { Env } from "../src/env.js";
import { Session, type AuthorizationOutcome } from "./session.js";
import { sessionRoutes } from "./session-routes.js";

export class SessionObject extends Agent<Env> {
  private readonly session = new Session({
    storage: this.ctx.storage,
    env: this.env,
    waitUntil: (promise) => this.ctx.waitUntil(promise),
  });
  private readonly routes = sessionRoutes(this.session);

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
