/**
 * Log-safe renderings of what the bridge runs: command lines with secret-looking
 * arguments replaced, URLs without credentials, query or fragment (core's `redactUrl`),
 * and env maps with secret values hidden. Heuristic by nature: it errs towards hiding
 * (a UUID may be masked), never towards showing a credential it recognises.
 */
import { redactUrl } from "../../src/core/url-policy.js";
import { compileDenyList, DEFAULT_DENY_PATTERNS, type NameMatcher } from "./deny-list.js";

export const REDACTED = "[REDACTED]";
/** Shorter runs are too often ordinary words, versions or ids to hide. */
export const MIN_TOKEN_LENGTH = 24;

export interface RedactOptions {
  /** Env-style names whose values are secrets (KEY=VALUE); defaults to DEFAULT_DENY_PATTERNS. */
  denyPatterns?: readonly string[];
}

/** Words that make a flag, header or key name a credential (`--api-key`, `X-Auth-Token`, `clientSecret`). */
const SECRET_WORDS = new Set([
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "key",
  "apikey",
  "auth",
  "authorization",
  "bearer",
  "credential",
  "credentials",
  "cookie",
]);
/** `--token-file PATH` names where the secret is, not the secret itself. */
const LOCATOR_WORDS = new Set(["file", "path", "dir", "name"]);

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
const AUTHORIZATION_PATTERN = /\b((?:proxy-)?authorization\s*[:=]\s*)(?:(bearer|basic|token|digest|negotiate)\s+)?([^\s"',]+)/gi;
const AUTHORIZATION_NAME = /^(?:proxy-)?authorization$/i;
const BEARER_PATTERN = /\b(bearer\s+)([^\s"',]+)/gi;
const HEADER_PATTERN = /\b([A-Za-z][\w-]*)(\s*:\s*)([^\s"',]+)/g;
const ASSIGNMENT_PATTERN = /\b([A-Za-z_][\w.-]*)=([^\s&;"',]*)/g;
const TOKEN_PATTERN = /[A-Za-z0-9+_-]{24,}={0,2}/g;
const FLAG_PATTERN = /^(-{1,2})([A-Za-z][\w.-]*)(?:=([\s\S]*))?$/;

/** Splits `--api-key`, `X_AUTH_TOKEN` and `clientSecret` into lower-case words. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s._-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  if (words[0] === "no") return false; // --no-auth is a switch, not a credential
  const last = words[words.length - 1];
  if (last !== undefined && LOCATOR_WORDS.has(last)) return false;
  return words.some((w) => SECRET_WORDS.has(w));
}

function looksLikeToken(run: string): boolean {
  const body = run.replace(/=+$/, "");
  if (body.length < MIN_TOKEN_LENGTH) return false;
  if (/^[0-9a-f]+$/i.test(body)) return true;
  return /[0-9]/.test(body) && /[a-z]/.test(body) && /[A-Z]/.test(body);
}

function redactWith(text: string, denied: NameMatcher): string {
  return text
    .replace(URL_PATTERN, (url) => redactUrl(url))
    .replace(AUTHORIZATION_PATTERN, (_m, head: string, scheme: string | undefined) => `${head}${scheme ? `${scheme} ` : ""}${REDACTED}`)
    .replace(BEARER_PATTERN, (_m, head: string) => `${head}${REDACTED}`)
    // Authorization was handled above, keeping its scheme readable.
    .replace(HEADER_PATTERN, (m, name: string, sep: string) => (isSecretName(name) && !AUTHORIZATION_NAME.test(name) ? `${name}${sep}${REDACTED}` : m))
    .replace(ASSIGNMENT_PATTERN, (m, name: string) => (denied(name) || isSecretName(name) ? `${name}=${REDACTED}` : m))
    .replace(TOKEN_PATTERN, (run) => (looksLikeToken(run) ? REDACTED : run));
}

/** One free-form string (an argument, a header, a log line). */
export function redactText(text: string, options: RedactOptions = {}): string {
  return redactWith(text, compileDenyList(options.denyPatterns ?? DEFAULT_DENY_PATTERNS));
}

/** argv with `--token X`, `--api-key=X` and every secret-looking value inside an argument hidden. */
export function redactArgs(args: readonly string[], options: RedactOptions = {}): string[] {
  const denied = compileDenyList(options.denyPatterns ?? DEFAULT_DENY_PATTERNS);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const flag = FLAG_PATTERN.exec(arg);
    if (flag && isSecretName(flag[2]!)) {
      if (flag[3] !== undefined) {
        out.push(`${flag[1]}${flag[2]}=${REDACTED}`);
        continue;
      }
      out.push(arg);
      // `--token X`: X is the secret, unless the flag is a bare switch followed by another flag.
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith("--")) {
        out.push(REDACTED);
        i++;
      }
      continue;
    }
    out.push(redactWith(arg, denied));
  }
  return out;
}

/** A shell-like line for logs; arguments with spaces or quotes are single-quoted. */
export function redactCommandLine(command: string, args: readonly string[], options: RedactOptions = {}): string {
  return [redactText(command, options), ...redactArgs(args, options)].map(quoteForLog).join(" ");
}

/** An env map for logs: values of secret-looking names hidden, names kept. */
export function redactEnv(env: Readonly<Record<string, string>>, options: RedactOptions = {}): Record<string, string> {
  const denied = compileDenyList(options.denyPatterns ?? DEFAULT_DENY_PATTERNS);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) out[name] = denied(name) || isSecretName(name) ? REDACTED : redactWith(value, denied);
  return out;
}

function quoteForLog(arg: string): string {
  if (arg !== "" && !/[\s'"\\$`]/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
