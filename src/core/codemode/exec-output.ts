/**
 * A script run's outcome (the exec contract) → the text a model reads as the `execute`
 * tool's result: the logs and the returned value; on failure the error and every tool
 * call already made (the model must report partial side effects). Shared by the
 * `execute` tool of `POST /tools/call` and the AI SDK adapter.
 */

export interface ExecCall {
  name: string;
  ms: number;
  isError: boolean;
}

/** `POST /v1/sessions/:id/exec`'s answer. */
export interface ExecOutcome {
  result?: unknown;
  logs: string[];
  calls: ExecCall[];
  error?: { message: string; stack?: string };
}

/** Stack lines kept in the error text (the message and the top frames are what a model can act on). */
export const STACK_LINES = 6;

function shown(value: unknown): string {
  if (value === undefined) return "(the script returned nothing)";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

function callLine(call: ExecCall): string {
  return `- ${call.name} (${call.ms} ms${call.isError ? ", failed" : ""})`;
}

export function execOutputText(outcome: ExecOutcome): { text: string; isError: boolean } {
  const logs = outcome.logs.length ? `Logs:\n${outcome.logs.join("\n")}\n\n` : "";
  if (!outcome.error) return { text: `${logs}Result:\n${shown(outcome.result)}`, isError: false };
  const stack = outcome.error.stack?.split("\n").slice(0, STACK_LINES).join("\n");
  const calls = outcome.calls.length
    ? `Tool calls made before the error (their effects happened):\n${outcome.calls.map(callLine).join("\n")}`
    : "No tool calls were made.";
  return { text: `${logs}The script failed: ${outcome.error.message}${stack ? `\n${stack}` : ""}\n\n${calls}`, isError: true };
}
