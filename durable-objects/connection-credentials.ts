/**
 * A connection's view of its principal's credentials for one server: the access token
 * from the vault, kept in memory until it is due for refresh (the vault refreshes it,
 * once for all sessions), so a request costs no vault call. After a 401 the vault is
 * told which token was refused; it refreshes once or drops them.
 */
import { credentialKey } from "../src/core/oauth/credential-key.js";
import { needsRefresh } from "../src/core/oauth/expiry.js";
import { SingleFlight } from "../src/core/oauth/single-flight.js";
import type { AccessGrant, RejectionOutcome } from "./credential-records.js";
import type { CredentialVault } from "./credential-vault.js";

export class ConnectionCredentials {
  private grant: AccessGrant | undefined;
  private loaded = false;
  private keyPromise: Promise<string> | undefined;
  private readonly loading = new SingleFlight<"grant", AccessGrant | undefined>();

  constructor(
    private readonly vault: DurableObjectStub<CredentialVault>,
    readonly serverUrl: string,
    readonly clientId: string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  key(): Promise<string> {
    this.keyPromise ??= credentialKey(this.serverUrl, this.clientId);
    return this.keyPromise;
  }

  /** The grant last handed out (its scope says what a step-up already covers). */
  get held(): AccessGrant | undefined {
    return this.grant;
  }

  async current(): Promise<AccessGrant | undefined> {
    if (this.loaded && (!this.grant || !needsRefresh(this.grant, this.now()))) return this.grant;
    return this.loading.run("grant", async () => {
      this.grant = await this.vault.accessToken(await this.key(), this.serverUrl);
      this.loaded = true;
      return this.grant;
    });
  }

  /** Read the vault again on next use (after a sign-in, a sign-out, or a reconnect). */
  forget(): void {
    this.grant = undefined;
    this.loaded = false;
  }

  async rejected(): Promise<RejectionOutcome> {
    const grant = this.grant;
    this.forget();
    if (!grant) return "needs_auth";
    return this.vault.tokenRejected(await this.key(), grant.accessToken);
  }
}
