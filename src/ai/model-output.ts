/**
 * A normalized mcp-edge call result → what the AI SDK sends the model as the tool's
 * result: plain text when there are no attachments, text plus file parts when there are
 * (images, audio, PDFs arrive as base64 data URLs), and error text for a tool error.
 * Code mode's script runs become text the same way (`src/core/codemode/exec-output.ts`).
 */
import type { Tool } from "ai";
import type { Attachment, CallResult, ExecResult } from "../api/schemas.js";
import { execOutputText } from "../core/codemode/exec-output.js";

/** The AI SDK's ToolResultOutput (`ai` does not export the name). */
export type ModelOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;
type ContentParts = Extract<ModelOutput, { type: "content" }>["value"];

/** `data:<mime>[;param…];base64,<data>` → the base64 data. */
const BASE64_DATA_URL = /^data:[^,]*;base64,(.*)$/is;

function filePart(attachment: Attachment): ContentParts[number] {
  const base64 = BASE64_DATA_URL.exec(attachment.url)?.[1];
  if (base64 !== undefined) return { type: "file", mediaType: attachment.mime, data: { type: "data", data: base64 } };
  return { type: "file", mediaType: attachment.mime, data: { type: "url", url: new URL(attachment.url) } };
}

export function callResultToModelOutput(result: CallResult): ModelOutput {
  if (result.isError) return { type: "error-text", value: result.output };
  if (result.attachments.length === 0) return { type: "text", value: result.output };
  return {
    type: "content",
    value: [...(result.output ? [{ type: "text" as const, text: result.output }] : []), ...result.attachments.map(filePart)],
  };
}

/** A code-mode script run → the model's view: logs and result as text; a failed run as error text listing the calls made. */
export function execResultToModelOutput(result: ExecResult): ModelOutput {
  const { text, isError } = execOutputText(result);
  return isError ? { type: "error-text", value: text } : { type: "text", value: text };
}
