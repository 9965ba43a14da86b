/**
 * One principal's OAuth credentials for remote MCP servers: a Durable Object (one per
 * principal) that keeps client registrations and tokens per server (bound to the
 * server's URL), encrypted at rest with AES-GCM under the deployment's
 * `CREDENTIALS_KEY`, and the pending authorizations (`state` nonces, single-use, 10
 * minutes). It alone holds refresh tokens: connections get access tokens, and a
 * refresh runs here, once per server at a time, however many sessions ask.
 *
 * Pending → committed: a flow's registration and verifier stay in its pending record
 * until the token exchange succeeded; only `commit` writes credentials.
 */
import { DurableObject } from "cloudflare:workers";
import { refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidGrantError, OAuthError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { credentialsKey, open, seal } from "../src/core/oauth/envelope.js";
import { expiresAtFrom, isExpired, needsRefresh, REFRESH_COOLDOWN_MS } from "../src/core/oauth/expiry.js";
import { SingleFlight } from "../src/core/oauth/single-flight.js";
import { isStateExpired } from "../src/core/oauth/state.js";
import { messageOf } from "../src/core/errors.js";
import type { Env } from "../src/env.js";
import {
  PendingFlowSchema,
  StoredCredentialsSchema,
  type AccessGrant,
  type CredentialSummary,
  type PendingFlow,
  type RejectionOutcome,
  type StoredCredentials,
  type StoredTokens,
  type TakeFlowResult,
} from "./credential-records.js";
import { oauthFetch } from "./oauth-fetch.js";

const FLOW_PREFIX = "flow:";

export const MISSING_KEY_MESSAGE =
  "credentials cannot be stored: this deployment has no CREDENTIALS_KEY secret (set one with `wrangler secret put CREDENTIALS_KEY`, at least 32 random characters)";

export class CredentialVault extends DurableObject<Env> {
  private cryptoKey: Promise<CryptoKey> | undefined;
  private readonly refreshes = new SingleFlight<string, AccessGrant | undefined>();

  private key(): Promise<CryptoKey> {
    const secret = this.env.CREDENTIALS_KEY;
    if (!secret) throw new Error(MISSING_KEY_MESSAGE);
    this.cryptoKey ??= credentialsKey(secret);
    return this.cryptoKey;
  }

  private get fetchFn(): typeof fetch {
    return oauthFetch(this.env.ALLOW_PRIVATE_URLS === "true");
  }

  // ── Pending authorizations ───────────────────────────────────────────────

  async beginFlow(flow: PendingFlow): Promise<void> {
    await this.pruneFlows(Date.now());
    const storageKey = FLOW_PREFIX + flow.nonce;
    await this.ctx.storage.put(storageKey, await seal(await this.key(), storageKey, PendingFlowSchema.parse(flow)));
  }

  /**
   * Reads and deletes a pending flow: a state works once, and not after it expired. A
   * state presented to another session than the one that started it is unknown there,
   * and the flow stays for its own session.
   */
  async takeFlow(nonce: string, sessionId: string): Promise<TakeFlowResult> {
    const storageKey = FLOW_PREFIX + nonce;
    const sealed = await this.ctx.storage.get(storageKey);
    if (sealed === undefined) return { ok: false, reason: "unknown" };
    const opened = await open(await this.key(), storageKey, sealed);
    const flow = opened.success ? PendingFlowSchema.safeParse(opened.value) : undefined;
    if (flow?.success && flow.data.sessionId !== sessionId) return { ok: false, reason: "unknown" };
    await this.ctx.storage.delete(storageKey);
    if (!flow?.success) return { ok: false, reason: "unknown" };
    if (isStateExpired(flow.data.createdAt, Date.now())) return { ok: false, reason: "expired" };
    return { ok: true, flow: flow.data };
  }

  private async pruneFlows(now: number): Promise<void> {
    const flows = await this.ctx.storage.list({ prefix: FLOW_PREFIX });
    const key = await this.key();
    for (const [storageKey, sealed] of flows) {
      const opened = await open(key, storageKey, sealed);
      const createdAt = opened.success ? PendingFlowSchema.safeParse(opened.value).data?.createdAt : undefined;
      if (createdAt === undefined || isStateExpired(createdAt, now)) await this.ctx.storage.delete(storageKey);
    }
  }

  // ── Credentials ──────────────────────────────────────────────────────────

  async commit(key: string, credentials: StoredCredentials): Promise<void> {
    await this.write(key, StoredCredentialsSchema.parse(credentials));
  }

  /** The full record (client registration included), for a new flow to reuse its registration. */
  async read(key: string, serverUrl: string): Promise<StoredCredentials | undefined> {
    const record = await this.load(key);
    return record && record.serverUrl === serverUrl ? record : undefined;
  }

  async summary(key: string): Promise<CredentialSummary | undefined> {
    const record = await this.load(key);
    if (!record) return undefined;
    return {
      serverUrl: record.serverUrl,
      clientId: record.client.client_id,
      hasAccessToken: Boolean(record.tokens),
      hasRefreshToken: Boolean(record.tokens?.refresh_token),
      obtainedAt: record.obtainedAt,
      ...(record.tokens?.scope ? { scope: record.tokens.scope } : {}),
      ...(record.expiresAt !== undefined ? { expiresAt: record.expiresAt } : {}),
    };
  }

  /** Sign-out: forgets the server's credentials (registration and tokens). */
  async drop(key: string): Promise<boolean> {
    return this.ctx.storage.delete(key);
  }

  /**
   * A usable access token for the server, refreshed first when it is due (single-flight
   * per server). undefined: none (never signed in, signed out, or the grant is gone).
   */
  async accessToken(key: string, serverUrl: string): Promise<AccessGrant | undefined> {
    const record = await this.load(key);
    if (!record?.tokens || record.serverUrl !== serverUrl) return undefined;
    const now = Date.now();
    if (!needsRefresh(record, now)) return grantOf(record);
    if (!record.tokens.refresh_token) return isExpired(record, now) ? undefined : grantOf(record);
    return this.refreshes.run(key, () => this.refresh(key, record.tokens!.access_token));
  }

  /**
   * The server refused `rejected` (401). Refreshes once if that token is still the
   * current one and was not just refreshed; otherwise the tokens are dropped, so the
   * server reads `needs_auth` instead of retrying a token that does not work.
   */
  async tokenRejected(key: string, rejected: string): Promise<RejectionOutcome> {
    const record = await this.load(key);
    if (!record?.tokens) return "needs_auth";
    if (record.tokens.access_token !== rejected) return "refreshed";
    // Only a refresh counts: a token fresh from the code exchange that the server already
    // refuses (its clock runs ahead of ours) gets its one refresh too.
    const justRefreshed = record.lastRefreshAt !== undefined && Date.now() - record.lastRefreshAt < REFRESH_COOLDOWN_MS;
    if (!record.tokens.refresh_token || justRefreshed) {
      await this.dropTokens(key, rejected);
      return "needs_auth";
    }
    const grant = await this.refreshes.run(key, () => this.refresh(key, rejected));
    return grant ? "refreshed" : "needs_auth";
  }

  /** One refresh; `invalid_grant` (or any OAuth refusal) drops the tokens. */
  private async refresh(key: string, from: string): Promise<AccessGrant | undefined> {
    const record = await this.load(key);
    if (!record?.tokens?.refresh_token) return undefined;
    // Someone refreshed while we waited for storage: use theirs.
    if (record.tokens.access_token !== from) return grantOf(record);
    try {
      const tokens = await refreshAuthorization(record.discovery.authorizationServerUrl, {
        ...(record.discovery.authorizationServerMetadata ? { metadata: record.discovery.authorizationServerMetadata as never } : {}),
        clientInformation: record.client,
        refreshToken: record.tokens.refresh_token,
        ...(record.discovery.resourceMetadata ? { resource: new URL(record.discovery.resourceMetadata.resource) } : {}),
        fetchFn: this.fetchFn,
      });
      const now = Date.now();
      const updated: StoredCredentials = {
        ...record,
        tokens: { ...(tokens as StoredTokens), ...(record.tokens.issuer ? { issuer: record.tokens.issuer } : {}) },
        obtainedAt: now,
        lastRefreshAt: now,
      };
      const expiresAt = expiresAtFrom(now, tokens.expires_in);
      if (expiresAt === undefined) delete updated.expiresAt;
      else updated.expiresAt = expiresAt;
      await this.write(key, updated);
      return grantOf(updated);
    } catch (error) {
      if (error instanceof InvalidGrantError || (error instanceof OAuthError && !(error instanceof ServerError))) {
        console.warn("[vault] refresh refused; tokens dropped", JSON.stringify({ error: error.errorCode }));
        await this.dropTokens(key, from);
        return undefined;
      }
      // A network or server error: the token in hand is still good until it expires.
      console.warn("[vault] refresh failed", JSON.stringify({ reason: messageOf(error).slice(0, 200) }));
      return isExpired(record, Date.now()) ? undefined : grantOf(record);
    }
  }

  private async dropTokens(key: string, ifToken: string): Promise<void> {
    const record = await this.load(key);
    if (!record?.tokens || record.tokens.access_token !== ifToken) return;
    const { tokens: _dropped, expiresAt: _e, ...rest } = record;
    await this.write(key, rest);
  }

  private async load(key: string): Promise<StoredCredentials | undefined> {
    const sealed = await this.ctx.storage.get(key);
    if (sealed === undefined) return undefined;
    const opened = await open(await this.key(), key, sealed);
    if (!opened.success) {
      console.warn("[vault] unreadable credential record dropped", JSON.stringify({ reason: opened.error }));
      await this.ctx.storage.delete(key);
      return undefined;
    }
    const parsed = StoredCredentialsSchema.safeParse(opened.value);
    return parsed.success ? parsed.data : undefined;
  }

  private async write(key: string, record: StoredCredentials): Promise<void> {
    await this.ctx.storage.put(key, await seal(await this.key(), key, record));
  }
}

function grantOf(record: StoredCredentials): AccessGrant {
  const tokens = record.tokens!;
  return {
    accessToken: tokens.access_token,
    tokenType: tokens.token_type,
    obtainedAt: record.obtainedAt,
    ...(record.expiresAt !== undefined ? { expiresAt: record.expiresAt } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
  };
}
