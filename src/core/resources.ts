/**
 * `read_mcp_resource` results for the model: text contents (and base64 blobs of a
 * textual type) go to the output, binary contents become attachments only for an
 * allow-list of MIME types and up to a size cap; anything else is a clear error
 * instead of bytes the model cannot use.
 */
import type { NormalizedResult } from "./normalize.js";

export const MAX_BINARY_RESOURCE_BYTES = 10 * 1024 * 1024;

export const BINARY_RESOURCE_MIME_ALLOW_LIST: readonly string[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "audio/wav",
  "audio/mpeg",
  "audio/mp3",
  "application/pdf",
];

export interface ResourceContent {
  uri: string;
  mimeType?: string | undefined;
  text?: string | undefined;
  blob?: string | undefined;
}

export function base64DecodedLength(base64: string): number {
  const clean = base64.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  // Never negative, even for text that is only padding ("=").
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function isTextual(mime: string): boolean {
  return mime.startsWith("text/") || mime === "application/json" || mime.endsWith("+json") || mime === "application/xml";
}

function decodeBase64Utf8(base64: string): string | undefined {
  let binary: string;
  try {
    binary = atob(base64.replace(/\s/g, ""));
  } catch {
    return undefined;
  }
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function readResourceAsResult(contents: readonly ResourceContent[]): NormalizedResult {
  const texts: string[] = [];
  const attachments: NormalizedResult["attachments"] = [];
  const problems: string[] = [];
  for (const content of contents) {
    if (typeof content.text === "string") {
      texts.push(content.text);
      continue;
    }
    if (typeof content.blob !== "string") continue;
    const mime = (content.mimeType ?? "application/octet-stream").toLowerCase();
    const size = base64DecodedLength(content.blob);
    if (size > MAX_BINARY_RESOURCE_BYTES) {
      problems.push(`${content.uri}: content is ${size} bytes, over the ${MAX_BINARY_RESOURCE_BYTES}-byte limit`);
      continue;
    }
    if (isTextual(mime)) {
      // A text resource sent base64-encoded is still text for the model.
      const text = decodeBase64Utf8(content.blob);
      if (text === undefined) problems.push(`${content.uri}: content is not valid base64`);
      else texts.push(text);
      continue;
    }
    if (!BINARY_RESOURCE_MIME_ALLOW_LIST.includes(mime)) {
      problems.push(`${content.uri}: binary content of type ${mime} is not supported (allowed: ${BINARY_RESOURCE_MIME_ALLOW_LIST.join(", ")})`);
    } else {
      attachments.push({ mime, url: `data:${mime};base64,${content.blob}` });
    }
  }
  if (problems.length > 0 && texts.length === 0 && attachments.length === 0) {
    return { output: problems.join("\n"), attachments: [], metadata: {}, isError: true };
  }
  return { output: [...texts, ...problems].join("\n"), attachments, metadata: {}, isError: false };
}
