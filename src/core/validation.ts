/**
 * zod failures → the API's typed 400: unknown keys are named (`unknownKeys`), anything
 * else names the first offending path (`invalidConfig` for server configs, `badRequest`
 * for other bodies); every issue travels in `data.issues`.
 */
import type { z } from "zod";
import { McpEdgeError, type ErrorCode } from "./errors.js";

export interface ValidationContext {
  /** Prefix for the message, e.g. `server "fs"`. */
  what?: string;
  /** Code for errors that are not unknown keys. */
  code?: Extract<ErrorCode, "badRequest" | "invalidConfig">;
  /** Extra fields for `data`. */
  data?: Record<string, unknown>;
}

export function validationError(error: z.ZodError, context: ValidationContext = {}): McpEdgeError {
  const issues = error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message }));
  const unknownKeys = error.issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? issue.keys : []));
  const prefix = context.what ? `${context.what}: ` : "";
  if (unknownKeys.length > 0) {
    return new McpEdgeError("unknownKeys", `${prefix}unknown keys: ${unknownKeys.join(", ")}`, { ...context.data, unknownKeys, issues });
  }
  const first = issues[0];
  const where = first ? `${first.path.join(".") || "(root)"}: ${first.message}` : "invalid";
  return new McpEdgeError(context.code ?? "badRequest", `${prefix}${where}`, { ...context.data, issues });
}

export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, context?: ValidationContext): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, context);
  return result.data;
}
