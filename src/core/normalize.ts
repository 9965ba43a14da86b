/**
 * Tool result normalization: an MCP `tools/call` result → the API's
 * `{output, attachments, metadata, isError}`. Text goes to the model-visible
 * output; images, audio and binary resources become data-URL attachments;
 * `_meta` (and the legacy `metadata`) stay out of the output.
 */
import { nestingDepth } from "./limits.js";

export interface Attachment {
  mime: string;
  url: string;
}

export interface NormalizedResult {
  output: string;
  attachments: Attachment[];
  metadata: Record<string, unknown>;
  isError: boolean;
}

/** The parts of a CallToolResult we read; loose on purpose, servers send odd things. */
export interface RawToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  _meta?: unknown;
  metadata?: unknown;
  toolResult?: unknown;
}

type Block = Record<string, unknown> & { type?: unknown };

/**
 * Structured content, legacy `toolResult` and metadata entries nested deeper than this are
 * not passed on: JSON.stringify recurses, and V8's stack ends a few thousand levels down.
 */
export const MAX_STRUCTURED_DEPTH = 256;
/** Deeper than this, structured content is rendered compact: indenting costs depth² characters. */
export const MAX_INDENTED_DEPTH = 32;

const BASE64_DATA_URI = /^data:([^;,]*)(?:;[^;,]*)*;base64,/i;

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function normalizeToolResult(result: RawToolResult): NormalizedResult {
  const texts: string[] = [];
  const attachments: Attachment[] = [];
  const blocks: Block[] = Array.isArray(result.content) ? result.content.filter(isRecord) : [];

  // Legacy (2024-10-07) results carry `toolResult` instead of content.
  if (blocks.length === 0 && result.toolResult !== undefined && result.structuredContent === undefined) {
    if (typeof result.toolResult === "string") texts.push(result.toolResult);
    else if (nestingDepth(result.toolResult, MAX_STRUCTURED_DEPTH + 1) > MAX_STRUCTURED_DEPTH) texts.push(tooDeep("toolResult"));
    else texts.push(JSON.stringify(result.toolResult) ?? "");
  }

  for (const block of blocks) {
    switch (block.type) {
      case "text": {
        const text = str(block.text);
        if (text !== undefined) texts.push(text);
        break;
      }
      case "image":
      case "audio": {
        const data = str(block.data);
        const mime = str(block.mimeType) ?? (block.type === "image" ? "image/png" : "audio/wav");
        if (data !== undefined) attachments.push({ mime, url: `data:${mime};base64,${data}` });
        break;
      }
      case "resource_link": {
        const uri = str(block.uri) ?? "";
        const name = str(block.name) ?? str(block.title) ?? uri;
        if (/^data:/i.test(uri)) {
          const match = BASE64_DATA_URI.exec(uri);
          // Only base64 data URIs become attachments; other data URIs are dropped.
          if (match) attachments.push({ mime: str(block.mimeType) ?? (match[1] || "application/octet-stream"), url: uri });
        } else if (uri) {
          texts.push(`${name}: ${uri}`);
        }
        break;
      }
      case "resource": {
        const resource = isRecord(block.resource) ? block.resource : {};
        const text = str(resource.text);
        const blob = str(resource.blob);
        if (text !== undefined) texts.push(text);
        else if (blob !== undefined) {
          const mime = str(resource.mimeType) ?? "application/octet-stream";
          attachments.push({ mime, url: `data:${mime};base64,${blob}` });
        }
        break;
      }
      default:
        break;
    }
  }

  let output = texts.join("\n");
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    const depth = nestingDepth(result.structuredContent, MAX_STRUCTURED_DEPTH + 1);
    if (depth > MAX_STRUCTURED_DEPTH) {
      output = `${output}${output ? "\n" : ""}Structured content: ${tooDeep("structuredContent")}`;
      return finish(output, attachments, result);
    }
    const compact = JSON.stringify(result.structuredContent);
    // Indentation grows with the square of the depth: deep values stay compact.
    const indented = depth > MAX_INDENTED_DEPTH ? compact : JSON.stringify(result.structuredContent, null, 2);
    if (texts.length === 0) output = indented;
    else if (!output.includes(compact) && !output.includes(indented)) output = `${output}\nStructured content:\n${indented}`;
  }

  return finish(output, attachments, result);
}

function finish(output: string, attachments: Attachment[], result: RawToolResult): NormalizedResult {
  // Object.fromEntries defines keys as data: a server's `__proto__` key stays data, never the prototype.
  // Entries too deep to serialize are left out.
  const metadata: Record<string, unknown> = Object.fromEntries(
    [...(isRecord(result.metadata) ? Object.entries(result.metadata) : []), ...(isRecord(result._meta) ? Object.entries(result._meta) : [])].filter(
      ([, value]) => nestingDepth(value, MAX_STRUCTURED_DEPTH) < MAX_STRUCTURED_DEPTH,
    ),
  );
  return { output, attachments, metadata, isError: result.isError === true };
}

function tooDeep(what: string): string {
  return `(${what} not shown: nested deeper than ${MAX_STRUCTURED_DEPTH} levels)`;
}

