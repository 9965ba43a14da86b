/**
 * What a script sees of a tool's answer: the `structuredContent` when the server sent
 * one (what a declared `outputSchema` describes), otherwise the output text, parsed when
 * the whole text is a JSON object or array. Attachments (images, audio, blobs) stay out of
 * the sandbox. A result with `isError` becomes an error the script can catch.
 */
import type { ToolCallResult } from "./types.js";

/** Longest error text handed to the script from an `isError` result. */
export const MAX_TOOL_ERROR_CHARS = 2_000;

export type ScriptOutcome = { ok: true; value?: unknown } | { ok: false; name: string; message: string };

export function scriptOutcome(result: ToolCallResult): ScriptOutcome {
  if (result.isError) {
    const text = result.output.trim() || "the tool reported an error";
    return { ok: false, name: "ToolError", message: text.length > MAX_TOOL_ERROR_CHARS ? `${text.slice(0, MAX_TOOL_ERROR_CHARS)}…` : text };
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return { ok: true, value: result.structuredContent };
  return { ok: true, value: parseJsonText(result.output) };
}

function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  if ((first === "{" && last === "}") || (first === "[" && last === "]")) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
