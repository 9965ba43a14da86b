/**
 * Where a principal's credentials for one server live: a digest of the server's URL
 * and the configured client id. A changed URL (or client) is another key, so
 * credentials obtained for the old one are never sent to the new one.
 */
export async function credentialKey(serverUrl: string, clientId: string | undefined): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${serverUrl}\n${clientId ?? ""}`));
  return `cred:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 48)}`;
}
