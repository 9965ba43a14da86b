/**
 * DNS-rebinding protection for endpoints a browser could be tricked into driving (the
 * aggregated MCP endpoint on a developer's machine): with a list of allowed hosts, a
 * request's Host, and its Origin when it has one, must name one of them. Entries without
 * a port match any port. No list: no check (a deployed Worker is reached only through
 * its own routes).
 */

/** Parses `MCP_ALLOWED_HOSTS`: comma-separated `host` or `host:port`, case-insensitive. */
export function parseAllowedHosts(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

function matches(hostPort: string, allowed: readonly string[]): boolean {
  const host = hostPort.toLowerCase();
  const bare = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!;
  return allowed.some((entry) => entry === host || entry === bare);
}

/** Whether a request with these headers may be served; always true for an empty list. */
export function hostAllowed(headers: { host: string | null; origin: string | null }, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  if (!headers.host || !matches(headers.host, allowed)) return false;
  if (headers.origin === null) return true;
  let originHost: string;
  try {
    originHost = new URL(headers.origin).host;
  } catch {
    return false;
  }
  return matches(originHost, allowed);
}
