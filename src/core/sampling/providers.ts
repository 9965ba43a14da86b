/**
 * Model providers for sampling: the `providers` shape of the deployment config and of a
 * session body (zod), the per-adapter capability registry that decides which media a
 * provider's wire format can carry, the merge of a session's providers over the
 * deployment's, and the redaction that keeps API keys out of every answer and log.
 */
import { z } from "zod";
import { McpEdgeError } from "../errors.js";

export const PROVIDER_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The adapters mcp-edge builds with `@ai-sdk/*` (see provider-factory.ts); others are accepted and reported as unsupported when used. */
export const KNOWN_PROVIDER_KINDS = ["openai-compatible", "openai", "anthropic", "google", "workers-ai"] as const;

export const InputModalitySchema = z.enum(["text", "image", "audio"]);
export type InputModality = z.infer<typeof InputModalitySchema>;

export const ModelSpecSchema = z.strictObject({
  /** What the model takes as input; text only unless declared. */
  input: z.array(InputModalitySchema).default(["text"]),
  /** The model's own output cap: `maxOutputTokens` = min(request maxTokens, this). */
  outputLimit: z.number().int().positive().optional(),
  /** false for models that reject a temperature (reasoning models): it is then never sent. */
  temperature: z.boolean().default(true),
  /** Tool-capable: the first such model is the session default when none is set. */
  toolCall: z.boolean().optional(),
  /** Declared figures for the priority tie-break: cost (lower is cheaper, e.g. $ per Mtok), speed and intelligence (higher is better, any scale). */
  cost: z.number().nonnegative().optional(),
  speed: z.number().nonnegative().optional(),
  intelligence: z.number().nonnegative().optional(),
});
export type ModelSpec = z.output<typeof ModelSpecSchema>;

export const ProviderSchema = z.strictObject({
  kind: z.string().min(1),
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).optional(),
  /** Stall timeout in ms: no model output for this long fails the request; ≤ 0 disables. */
  chunkTimeout: z.number().int().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  models: z.record(z.string().min(1).max(256), ModelSpecSchema),
});
export type Provider = z.output<typeof ProviderSchema>;

export const ProvidersSchema = z.record(z.string().regex(PROVIDER_ID_PATTERN, "provider ids match ^[a-zA-Z0-9_-]{1,64}$"), ProviderSchema);
export type Providers = z.output<typeof ProvidersSchema>;

/** Image formats every adapter is sent (each ≤ 20 MiB decoded, checked in request.ts). */
export const IMAGE_MIME_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

export interface AdapterCapabilities {
  /** "any": every audio/* type; "none": no audio; "unknown": not in the registry, which disqualifies audio; a list: exactly these. */
  audio: "any" | "none" | "unknown" | readonly string[];
  image: readonly string[];
}

// What each adapter's wire format can carry: openai-compatible maps only wav and mp3 to
// `input_audio`; Gemini takes any audio inline; Anthropic and Bedrock take none.
const ADAPTER_AUDIO: Record<string, AdapterCapabilities["audio"]> = {
  "openai-compatible": ["audio/wav", "audio/mp3", "audio/mpeg"],
  google: "any",
  anthropic: "none",
  bedrock: "none",
};

export function adapterCapabilities(kind: string): AdapterCapabilities {
  return { audio: ADAPTER_AUDIO[kind] ?? "unknown", image: IMAGE_MIME_TYPES };
}

/** Does an adapter take this (normalized) audio MIME type? */
export function adapterTakesAudio(capabilities: AdapterCapabilities, mime: string): boolean {
  const { audio } = capabilities;
  if (audio === "any") return mime.startsWith("audio/");
  if (audio === "none" || audio === "unknown") return false;
  return audio.includes(mime);
}

/**
 * A session's providers over the deployment's. A session entry with a deployment id
 * replaces that entry whole, never field by field: a session must not point a
 * deployment's API key at a baseURL of its choosing.
 */
export function mergeProviders(deployment: Providers = {}, session: Providers = {}): Providers {
  return { ...deployment, ...session };
}

export type RedactedProvider = Omit<Provider, "apiKey"> & { apiKey?: never };

/** Providers as any answer or log may show them: no `apiKey`, header values replaced (they often carry keys too). */
export function redactProviders(providers: Providers): Record<string, RedactedProvider> {
  const out: Record<string, RedactedProvider> = {};
  for (const [id, provider] of Object.entries(providers)) {
    const { apiKey: _apiKey, headers, ...rest } = provider;
    out[id] = headers ? { ...rest, headers: Object.fromEntries(Object.keys(headers).map((name) => [name, "[redacted]"])) } : rest;
  }
  return out;
}

/**
 * The deployment's providers: `MODEL_PROVIDERS` (JSON, no keys) with the keys from the
 * secret `MODEL_PROVIDER_KEYS` (JSON `{ID: key}`) merged in. Bad JSON or shapes throw a
 * typed error naming the variable (a deployment mistake, shown on every session create).
 */
export function parseDeploymentProviders(json: string | undefined, keysJson: string | undefined): Providers {
  const parse = (text: string | undefined, name: string): unknown => {
    if (!text || text.trim() === "") return {};
    try {
      return JSON.parse(text);
    } catch {
      throw new McpEdgeError("invalidConfig", `${name} is not valid JSON`);
    }
  };
  const providers = ProvidersSchema.safeParse(parse(json, "MODEL_PROVIDERS"));
  if (!providers.success) throw new McpEdgeError("invalidConfig", `MODEL_PROVIDERS: ${providers.error.issues[0]?.message ?? "invalid"}`);
  const keys = z.record(z.string(), z.string().min(1)).safeParse(parse(keysJson, "MODEL_PROVIDER_KEYS"));
  if (!keys.success) throw new McpEdgeError("invalidConfig", "MODEL_PROVIDER_KEYS must be a JSON object of provider id to key");
  const out: Providers = {};
  for (const [id, provider] of Object.entries(providers.data)) {
    const key = keys.data[id];
    out[id] = key !== undefined ? { ...provider, apiKey: key } : provider;
  }
  return out;
}
