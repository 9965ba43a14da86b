/**
 * Strict validation of a server's `sampling/createMessage` params, before any policy or
 * model work: every rule that fails names the field and what is wrong (InvalidParams,
 * -32602, `data.path`). mcp-edge declares `sampling: {}` only, so tools and tool content
 * are refused; media must be canonical base64 with a MIME type of their modality and
 * become AI SDK file parts with that MIME (audio is never transcribed).
 */
import type { FilePart, ModelMessage, TextPart } from "ai";
import { IMAGE_MIME_TYPES } from "./providers.js";
import { invalidParams } from "./errors.js";

const MIB = 1024 * 1024;
export const DEFAULT_MAX_IMAGE_BYTES = 20 * MIB;
export const DEFAULT_MAX_AUDIO_BYTES = 20 * MIB;
export const DEFAULT_MAX_TEXT_BYTES = 1 * MIB;
export const DEFAULT_MAX_SYSTEM_PROMPT_BYTES = 1 * MIB;

export interface SamplingLimits {
  /** Decoded bytes per image item. */
  maxImageBytes: number;
  /** Decoded bytes per audio item. */
  maxAudioBytes: number;
  /** UTF-8 bytes per text item. */
  maxTextBytes: number;
  /** UTF-8 bytes of the system prompt. */
  maxSystemPromptBytes: number;
}

export const DEFAULT_SAMPLING_LIMITS: SamplingLimits = {
  maxImageBytes: DEFAULT_MAX_IMAGE_BYTES,
  maxAudioBytes: DEFAULT_MAX_AUDIO_BYTES,
  maxTextBytes: DEFAULT_MAX_TEXT_BYTES,
  maxSystemPromptBytes: DEFAULT_MAX_SYSTEM_PROMPT_BYTES,
};

export type ContentKind = "text" | "image" | "audio";

export interface ValidatedSampling {
  messages: ModelMessage[];
  system?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  modalities: { image: boolean; audio: boolean; audioMimes: string[] };
  /** Decoded bytes of all audio items. */
  audioBytes: number;
  /** Distinct content kinds in order of first appearance. */
  contentKinds: ContentKind[];
  /** The first text of the first user message that has one. */
  firstUserText?: string;
  /** The server's `modelPreferences.hints` names, in its order. */
  hints: string[];
  priorities: { cost?: number; speed?: number; intelligence?: number };
  /** Recorded, not acted on: mcp-edge does not declare `sampling.context`. */
  includeContext?: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// RFC 6838 type/subtype tokens, optional parameters.
const MIME = /^([a-z0-9][a-z0-9!#$&^_.+-]{0,126})\/([a-z0-9][a-z0-9!#$&^_.+-]{0,126})(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"]*"|[a-z0-9!#$&^_.+-]+))*$/i;

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const fail = (path: string, message: string, extra: Record<string, unknown> = {}) => invalidParams(`${path}: ${message}`, { path, ...extra });

/** Decoded length of canonical base64, or an error message. */
function base64Bytes(data: string): number | string {
  if (data.length === 0) return "is empty";
  if (data.length % 4 !== 0) return `is not canonical base64 (length ${data.length} is not a multiple of 4)`;
  if (!BASE64.test(data)) return "is not canonical base64 (characters outside A-Z a-z 0-9 + /, or padding before the end)";
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

/** `image/PNG; q=1` → `image/png`, or undefined when not a valid MIME type. */
export function normalizeMime(mime: string): string | undefined {
  const match = MIME.exec(mime.trim());
  return match ? `${match[1]}/${match[2]}`.toLowerCase() : undefined;
}

interface Collector {
  kinds: ContentKind[];
  audioMimes: string[];
  audioBytes: number;
  firstUserText?: string;
}

function contentPart(item: unknown, path: string, role: "user" | "assistant", limits: SamplingLimits, seen: Collector): TextPart | FilePart {
  if (!isRecord(item)) throw fail(path, "content must be an object with a type");
  const type = item.type;
  if (type === "tool_use" || type === "tool_result") {
    throw fail(`${path}.type`, `"${type}" content needs sampling.tools, which mcp-edge does not declare`);
  }
  if (type !== "text" && type !== "image" && type !== "audio") {
    throw fail(`${path}.type`, `content type must be text, image or audio, got ${JSON.stringify(type)}`);
  }
  if (!seen.kinds.includes(type)) seen.kinds.push(type);
  if (type === "text") {
    if (typeof item.text !== "string") throw fail(`${path}.text`, "must be a string");
    const bytes = utf8Bytes(item.text);
    if (bytes > limits.maxTextBytes) throw fail(`${path}.text`, `is ${bytes} bytes, over the ${limits.maxTextBytes}-byte limit`, { bytes, limit: limits.maxTextBytes });
    if (role === "user" && seen.firstUserText === undefined) seen.firstUserText = item.text;
    return { type: "text", text: item.text };
  }
  if (typeof item.mimeType !== "string") throw fail(`${path}.mimeType`, "must be a string");
  const mime = normalizeMime(item.mimeType);
  if (!mime) throw fail(`${path}.mimeType`, `${JSON.stringify(item.mimeType)} is not a valid MIME type`);
  if (!mime.startsWith(`${type}/`)) throw fail(`${path}.mimeType`, `${mime} does not match ${type} content (expected ${type}/…)`);
  if (type === "image" && !IMAGE_MIME_TYPES.includes(mime)) {
    throw fail(`${path}.mimeType`, `${mime} is not a supported image type (${IMAGE_MIME_TYPES.join(", ")})`);
  }
  if (typeof item.data !== "string") throw fail(`${path}.data`, "must be a base64 string");
  const bytes = base64Bytes(item.data);
  if (typeof bytes === "string") throw fail(`${path}.data`, bytes);
  const limit = type === "image" ? limits.maxImageBytes : limits.maxAudioBytes;
  if (bytes > limit) throw fail(`${path}.data`, `${type} is ${bytes} bytes decoded, over the ${limit}-byte limit`, { bytes, limit });
  if (type === "audio") {
    seen.audioBytes += bytes;
    if (!seen.audioMimes.includes(mime)) seen.audioMimes.push(mime);
  }
  return { type: "file", data: item.data, mediaType: mime };
}

function optionalNumber(value: unknown, path: string, range?: [number, number]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw fail(path, "must be a number");
  if (range && (value < range[0] || value > range[1])) throw fail(path, `must be between ${range[0]} and ${range[1]}`);
  return value;
}

/** Validates `sampling/createMessage` params; throws SamplingError InvalidParams (-32602) naming the first violation. */
export function validateSamplingRequest(params: unknown, limits: Partial<SamplingLimits> = {}): ValidatedSampling {
  const caps: SamplingLimits = { ...DEFAULT_SAMPLING_LIMITS, ...limits };
  if (!isRecord(params)) throw fail("params", "must be an object");
  for (const field of ["tools", "toolChoice"] as const) {
    if (params[field] !== undefined) throw fail(field, "is not supported: mcp-edge does not declare sampling.tools");
  }

  const { maxTokens } = params;
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens <= 0) {
    throw fail("maxTokens", `must be a positive integer, got ${JSON.stringify(maxTokens) ?? "nothing"}`);
  }

  let system: string | undefined;
  if (params.systemPrompt !== undefined) {
    if (typeof params.systemPrompt !== "string") throw fail("systemPrompt", "must be a string");
    const bytes = utf8Bytes(params.systemPrompt);
    if (bytes > caps.maxSystemPromptBytes) {
      throw fail("systemPrompt", `is ${bytes} bytes, over the ${caps.maxSystemPromptBytes}-byte limit`, { bytes, limit: caps.maxSystemPromptBytes });
    }
    if (params.systemPrompt.length > 0) system = params.systemPrompt;
  }

  if (!Array.isArray(params.messages)) throw fail("messages", "must be an array");
  if (params.messages.length === 0) throw fail("messages", "must not be empty");
  const seen: Collector = { kinds: [], audioMimes: [], audioBytes: 0 };
  const messages: ModelMessage[] = params.messages.map((message: unknown, i): ModelMessage => {
    const path = `messages[${i}]`;
    if (!isRecord(message)) throw fail(path, "must be an object with role and content");
    const { role, content } = message;
    if (role !== "user" && role !== "assistant") throw fail(`${path}.role`, `must be "user" or "assistant", got ${JSON.stringify(role)}`);
    const items = Array.isArray(content) ? content : [content];
    if (content === undefined || items.length === 0) throw fail(`${path}.content`, "must not be empty");
    const parts = items.map((item, j) => contentPart(item, Array.isArray(content) ? `${path}.content[${j}]` : `${path}.content`, role, caps, seen));
    return role === "user" ? { role, content: parts } : { role, content: parts };
  });

  const temperature = optionalNumber(params.temperature, "temperature");
  let stopSequences: string[] | undefined;
  if (params.stopSequences !== undefined) {
    if (!Array.isArray(params.stopSequences) || !params.stopSequences.every((s) => typeof s === "string")) {
      throw fail("stopSequences", "must be an array of strings");
    }
    stopSequences = params.stopSequences as string[];
  }

  let includeContext: string | undefined;
  if (params.includeContext !== undefined) {
    if (params.includeContext !== "none" && params.includeContext !== "thisServer" && params.includeContext !== "allServers") {
      throw fail("includeContext", `must be "none", "thisServer" or "allServers", got ${JSON.stringify(params.includeContext)}`);
    }
    includeContext = params.includeContext;
  }

  const hints: string[] = [];
  const priorities: ValidatedSampling["priorities"] = {};
  const preferences = params.modelPreferences;
  if (preferences !== undefined) {
    if (!isRecord(preferences)) throw fail("modelPreferences", "must be an object");
    if (preferences.hints !== undefined) {
      if (!Array.isArray(preferences.hints)) throw fail("modelPreferences.hints", "must be an array");
      preferences.hints.forEach((hint: unknown, i) => {
        if (!isRecord(hint)) throw fail(`modelPreferences.hints[${i}]`, "must be an object");
        if (hint.name === undefined) return;
        if (typeof hint.name !== "string") throw fail(`modelPreferences.hints[${i}].name`, "must be a string");
        if (hint.name.length > 0) hints.push(hint.name);
      });
    }
    for (const [key, name] of [["costPriority", "cost"], ["speedPriority", "speed"], ["intelligencePriority", "intelligence"]] as const) {
      const value = optionalNumber(preferences[key], `modelPreferences.${key}`, [0, 1]);
      if (value !== undefined) priorities[name] = value;
    }
  }

  return {
    messages,
    ...(system === undefined ? {} : { system }),
    maxTokens,
    ...(temperature === undefined ? {} : { temperature }),
    ...(stopSequences === undefined ? {} : { stopSequences }),
    modalities: { image: seen.kinds.includes("image"), audio: seen.kinds.includes("audio"), audioMimes: seen.audioMimes },
    audioBytes: seen.audioBytes,
    contentKinds: seen.kinds,
    ...(seen.firstUserText === undefined ? {} : { firstUserText: seen.firstUserText }),
    hints,
    priorities,
    ...(includeContext === undefined ? {} : { includeContext }),
  };
}
