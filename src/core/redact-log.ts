/**
 * Server log messages on their way to the event stream: strings lose URL query strings and
 * credentials and bearer tokens, values under secret-looking keys are replaced, and long
 * strings and deep structures are cut, so a chatty or careless server cannot leak secrets or
 * flood front-ends.
 */
import { redactUrl } from "./url-policy.js";

export const REDACTED = "[redacted]";
export const MAX_LOG_STRING = 2_000;
const MAX_DEPTH = 6;
const SECRET_KEY = /(token|secret|password|passwd|api[-_]?key|authorization|cookie|credential)/i;
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>]+/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

export function redactLogText(text: string): string {
  const cleaned = text.replace(URL_IN_TEXT, (url) => redactUrl(url)).replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  return cleaned.length > MAX_LOG_STRING ? `${cleaned.slice(0, MAX_LOG_STRING)}… (${cleaned.length - MAX_LOG_STRING} more characters)` : cleaned;
}

export function redactLogData(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactLogText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[…]";
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => redactLogData(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value).slice(0, 100)) out[key] = SECRET_KEY.test(key) ? REDACTED : redactLogData(item, depth + 1);
  return out;
}
