/**
 * Environment references inside server entries, in each format's own syntax, so configs
 * copied from Claude Code or opencode keep working: a secret like API_KEY is withheld
 * from children by the deny list, and a reference is how a config passes it on.
 *   Claude Code: `${VAR}` and `${VAR:-default}`; an unset VAR without default is an error.
 *   opencode:    `{env:VAR}`; an unset VAR becomes "" (as opencode does).
 */

export type Env = Readonly<Record<string, string | undefined>>;

export type Expansion = { ok: true; value: string } | { ok: false; missing: string[] };

const CLAUDE_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const OPENCODE_REF = /\{env:([^}]+)\}/g;

export function expandClaudeRefs(text: string, env: Env): Expansion {
  const missing: string[] = [];
  const value = text.replace(CLAUDE_REF, (_m, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined) return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return "";
  });
  return missing.length > 0 ? { ok: false, missing } : { ok: true, value };
}

export function expandOpencodeRefs(text: string, env: Env): string {
  return text.replace(OPENCODE_REF, (_m, name: string) => env[name.trim()] ?? "");
}
