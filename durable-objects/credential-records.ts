/**
 * What the credential vault keeps, validated on every read: a principal's credentials
 * for one server (bound to its URL), and pending authorizations (a `state` nonce →
 * what finishing the flow needs). Both are stored encrypted (src/core/oauth/envelope.ts).
 */
import { z } from "zod";

/** The SDK's OAuthClientInformation (plus `issuer`, which the SDK stamps). */
export const ClientInformationSchema = z.looseObject({
  client_id: z.string(),
  client_secret: z.string().optional(),
  token_endpoint_auth_method: z.string().optional(),
  issuer: z.string().optional(),
});

export const TokensSchema = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  refresh_token: z.string().optional(),
  expires_in: z.number().optional(),
  scope: z.string().optional(),
  issuer: z.string().optional(),
});

/** The SDK's OAuthDiscoveryState: where the authorization server is and what it said. */
export const DiscoverySchema = z.looseObject({
  authorizationServerUrl: z.string(),
  resourceMetadataUrl: z.string().optional(),
  authorizationServerMetadata: z.looseObject({}).optional(),
  resourceMetadata: z.looseObject({ resource: z.string() }).optional(),
});

export const StoredCredentialsSchema = z.object({
  serverUrl: z.string(),
  client: ClientInformationSchema,
  discovery: DiscoverySchema,
  tokens: TokensSchema.optional(),
  obtainedAt: z.number(),
  expiresAt: z.number().optional(),
  lastRefreshAt: z.number().optional(),
});

export const PendingFlowSchema = z.object({
  nonce: z.string(),
  principal: z.string(),
  sessionId: z.string(),
  server: z.string(),
  key: z.string(),
  serverUrl: z.string(),
  createdAt: z.number(),
  redirectUrl: z.string(),
  codeVerifier: z.string(),
  client: ClientInformationSchema,
  discovery: DiscoverySchema.optional(),
  scope: z.string().optional(),
});

export type ClientInformation = z.infer<typeof ClientInformationSchema>;
export type StoredTokens = z.infer<typeof TokensSchema>;
export type DiscoveryState = z.infer<typeof DiscoverySchema>;
export type StoredCredentials = z.infer<typeof StoredCredentialsSchema>;
export type PendingFlow = z.infer<typeof PendingFlowSchema>;

/** What a session may know about held credentials: never a secret. */
export interface CredentialSummary {
  serverUrl: string;
  clientId: string;
  hasAccessToken: boolean;
  hasRefreshToken: boolean;
  scope?: string;
  expiresAt?: number;
  obtainedAt: number;
}

/** An access token handed to a connection (never the refresh token). */
export interface AccessGrant {
  accessToken: string;
  tokenType: string;
  expiresAt?: number;
  obtainedAt: number;
  scope?: string;
}

export type TakeFlowResult = { ok: true; flow: PendingFlow } | { ok: false; reason: "unknown" | "expired" };
export type RejectionOutcome = "refreshed" | "needs_auth";
