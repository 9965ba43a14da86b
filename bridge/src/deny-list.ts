/**
 * Which environment variable names count as secrets: case-insensitive globs (`*` any run
 * of characters, `?` one character) matched against the whole name. Shared by the child
 * environment (what a server inherits) and redaction (what reaches a log line).
 */

/** Names that look like credentials unless a server's config passes them on purpose. */
export const DEFAULT_DENY_PATTERNS: readonly string[] = ["*_TOKEN", "*_SECRET", "*_KEY", "*PASSWORD*"];

export type NameMatcher = (name: string) => boolean;

/** Compiles globs once; the matcher is then cheap enough to call per variable. */
export function compileDenyList(patterns: readonly string[] = DEFAULT_DENY_PATTERNS): NameMatcher {
  if (patterns.length === 0) return () => false;
  const source = patterns.map(globToRegExpSource).join("|");
  const regex = new RegExp(`^(?:${source})$`, "i");
  return (name) => regex.test(name);
}

function globToRegExpSource(glob: string): string {
  let out = "";
  for (const ch of glob) {
    if (ch === "*") out += ".*";
    else if (ch === "?") out += ".";
    else out += ch.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
  }
  return out;
}
