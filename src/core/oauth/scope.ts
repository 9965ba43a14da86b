/**
 * Which scope an authorization asks for, as the MCP authorization spec says: the one the
 * server's challenge (`WWW-Authenticate: Bearer scope=…`) names, else what the server
 * config sets, else none (the SDK then takes the protected resource's
 * `scopes_supported`, or omits it). A step-up (403 `insufficient_scope`) asks for the
 * union of what was granted and what the challenge wants, so it never loses scopes.
 */

export interface ScopeInputs {
  /** `scope` of the last challenge. */
  challenge?: string | undefined;
  /** The challenge was a 403 `insufficient_scope`. */
  stepUp?: boolean;
  /** `oauth.scope` of the server config. */
  configured?: string | undefined;
  /** The scope of the tokens held now. */
  granted?: string | undefined;
}

export function selectScope(inputs: ScopeInputs): string | undefined {
  if (inputs.stepUp && inputs.challenge) return unionScopes(inputs.granted, inputs.configured, inputs.challenge);
  return nonEmpty(inputs.challenge) ?? nonEmpty(inputs.configured);
}

export function scopeList(scope: string | undefined): string[] {
  return (scope ?? "").split(/\s+/).filter(Boolean);
}

export function unionScopes(...scopes: Array<string | undefined>): string | undefined {
  const out = [...new Set(scopes.flatMap(scopeList))];
  return out.length > 0 ? out.join(" ") : undefined;
}

/** Every scope of `wanted` is in `held`: a step-up for it already happened. */
export function coversScope(held: string | undefined, wanted: string | undefined): boolean {
  const have = new Set(scopeList(held));
  return scopeList(wanted).every((s) => have.has(s));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}
