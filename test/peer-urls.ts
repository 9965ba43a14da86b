/** URLs of the real peers that globalSetup starts, handed to tests with provide/inject. */
export interface PeerUrls {
  everything: string;
  everythingSse: string;
  fixture: string;
  oauth: string;
  /** OAuth-protected, 2-second access tokens with rotating refresh tokens (test/fixtures/oauth-refresh-server.mjs). */
  oauthRefresh: string;
  /** The refresh fixture with hour-long access tokens (clock skew). */
  oauthSkew: string;
  refused: string;
  control: string;
  /** Copies of server-everything and the fixture that only the fault tests stop, pause and restart (control names `faultEverything`, `faultFixture`). */
  faultEverything: string;
  faultFixture: string;
  /** OpenAI-compatible model server (`…/v1`); behaviour chosen by model id. */
  model: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    peers: PeerUrls;
  }
}
