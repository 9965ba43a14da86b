/**
 * The limits of one script run, each with a named default. A deployment can change
 * them (`CODE_MODE_*` vars); a request can only choose its own wall time.
 */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_CALLS = 100;
/** Logs and result together, in UTF-8 bytes, before the truncation marker. */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
/** QuickJS heap; a dynamic isolate has the platform's own (128 MB on Workers). */
export const DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024;
/** QuickJS's stack: small enough that it overflows before the host's own stack does (512 KiB did not, in Node). */
export const DEFAULT_STACK_BYTES = 256 * 1024;
/** Largest script accepted (the body limit of POST /exec). */
export const MAX_CODE_CHARS = 1024 * 1024;

export interface CodeModeLimits {
  /** Wall time of the whole run, tool calls included. */
  timeoutMs: number;
  /** Tool calls per run; the next one throws in the script. */
  maxCalls: number;
  maxOutputBytes: number;
  memoryBytes: number;
  stackBytes: number;
}

export const DEFAULT_LIMITS: CodeModeLimits = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  maxCalls: DEFAULT_MAX_CALLS,
  maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
  memoryBytes: DEFAULT_MEMORY_BYTES,
  stackBytes: DEFAULT_STACK_BYTES,
};

/** A positive whole number from a deployment var, or the default. */
export function positiveInt(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
