/**
 * Model selection: modality filtering against model ∩ adapter capability (audio MIME
 * registry, unknown adapters), hint ranking (exact before substring, hints in order), the
 * session default chain, the priority tie-break, and the rejected list when nothing fits.
 */
import { describe, expect, it } from "vitest";
import { SamplingError } from "../../src/core/sampling/errors.js";
import { ProvidersSchema, type Providers } from "../../src/core/sampling/providers.js";
import { validateSamplingRequest } from "../../src/core/sampling/request.js";
import { priorityScores, selectModel, type SelectModelOptions } from "../../src/core/sampling/select.js";

const providers = (value: unknown): Providers => ProvidersSchema.parse(value);

const CATALOG = providers({
  oai: {
    kind: "openai-compatible",
    baseURL: "https://llm.example/v1",
    models: {
      "gpt-4o": { input: ["text", "image", "audio"], toolCall: true, cost: 5, speed: 60, intelligence: 80 },
      "gpt-4o-mini": { input: ["text", "image"], toolCall: true, cost: 0.5, speed: 90, intelligence: 60 },
    },
  },
  claude: {
    kind: "anthropic",
    models: {
      "claude-sonnet-4": { input: ["text", "image", "audio"], cost: 3, speed: 50, intelligence: 90 },
      "claude-haiku-4": { input: ["text"], cost: 1, speed: 95 },
    },
  },
  gem: { kind: "google", models: { "gemini-2.5-flash": { input: ["text", "image", "audio"], cost: 0.3, speed: 99, intelligence: 70 } } },
  wai: { kind: "workers-ai", baseURL: "https://api.cloudflare.com/client/v4/accounts/x/ai/v1", models: { "llama-audio": { input: ["text", "audio"] } } },
});

const text = (t: string) => ({ type: "text", text: t });
function request(content: unknown[] = [text("hi")], preferences?: Record<string, unknown>) {
  return validateSamplingRequest({ messages: [{ role: "user", content }], maxTokens: 10, ...(preferences ? { modelPreferences: preferences } : {}) });
}
const hints = (...names: string[]) => ({ hints: names.map((name) => ({ name })) });
const pick = (options: Partial<SelectModelOptions> & Pick<SelectModelOptions, "request">) => selectModel({ providers: CATALOG, ...options }).id;

function noModel(options: SelectModelOptions): SamplingError {
  try {
    selectModel(options);
  } catch (error) {
    expect(SamplingError.is(error)).toBe(true);
    return error as SamplingError;
  }
  throw new Error("expected no model");
}

const IMAGE = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
const WAV = { type: "audio", data: "UklGRg==", mimeType: "audio/wav" };
const OGG = { type: "audio", data: "T2dnUw==", mimeType: "audio/ogg" };

describe("selectModel: modality filtering", () => {
  it("text goes anywhere; with no hint and no default: the first tool-capable model", () => {
    expect(pick({ request: request() })).toBe("oai/gpt-4o");
  });

  it("an image needs a model that declares image input", () => {
    expect(pick({ request: request([IMAGE]), ...{ defaultModel: "claude/claude-haiku-4" } })).toBe("claude/claude-sonnet-4");
  });

  it("wav audio: openai-compatible and google take it, anthropic never does, an adapter outside the registry never does", () => {
    const r = request([WAV], hints("claude-sonnet-4"));
    // The hint names an ineligible model: ignored, the session default applies.
    expect(selectModel({ providers: CATALOG, request: r }).id).toBe("oai/gpt-4o");
    expect(pick({ request: request([WAV], hints("llama-audio")) })).toBe("oai/gpt-4o");
  });

  it("ogg audio: only google (any audio) is left; openai-compatible takes wav/mp3/mpeg only", () => {
    expect(pick({ request: request([OGG]) })).toBe("gem/gemini-2.5-flash");
  });

  it("no eligible model → InvalidParams listing every model and why", () => {
    const ogg = request([OGG, IMAGE]);
    const error = noModel({ providers: providers({ ...CATALOG, gem: { kind: "google", models: { "gemini-text": {} } } }), request: ogg });
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("no configured model can take this request (audio, image)");
    expect((error.data as { rejected: unknown[] }).rejected).toEqual([
      { model: "claude/claude-haiku-4", reason: "the model does not take image input" },
      { model: "claude/claude-sonnet-4", reason: "the anthropic adapter carries no audio" },
      { model: "gem/gemini-text", reason: "the model does not take image input" },
      { model: "oai/gpt-4o", reason: "the openai-compatible adapter does not take audio/ogg" },
      { model: "oai/gpt-4o-mini", reason: "the model does not take audio input" },
      { model: "wai/llama-audio", reason: "the model does not take image input" },
    ]);
  });

  it("an adapter whose audio support is unknown is rejected with that reason", () => {
    const error = noModel({ providers: providers({ wai: CATALOG.wai }), request: request([WAV]) });
    expect(error.data).toEqual({ rejected: [{ model: "wai/llama-audio", reason: "the workers-ai adapter's audio support is unknown" }] });
  });

  it("no models at all", () => {
    const error = noModel({ providers: {}, request: request() });
    expect(error).toMatchObject({ code: -32602, message: "no sampling models are configured", data: { rejected: [] } });
  });
});

describe("selectModel: hints", () => {
  it("exact model id or provider/model (case-insensitive)", () => {
    expect(pick({ request: request(undefined, hints("claude-haiku-4")) })).toBe("claude/claude-haiku-4");
    expect(pick({ request: request(undefined, hints("oai/GPT-4o-mini")) })).toBe("oai/gpt-4o-mini");
  });

  it("an exact match beats a substring match of the same hint", () => {
    // "gpt-4o" is a substring of gpt-4o-mini too, but names gpt-4o exactly.
    expect(pick({ request: request(undefined, hints("gpt-4o")), defaultModel: "oai/gpt-4o-mini" })).toBe("oai/gpt-4o");
  });

  it("hints are tried in order; the first that matches anything wins, even by substring", () => {
    expect(pick({ request: request(undefined, hints("mistral", "haiku", "gpt-4o")) })).toBe("claude/claude-haiku-4");
    expect(pick({ request: request(undefined, hints("gemini", "claude-haiku-4")) })).toBe("gem/gemini-2.5-flash");
  });

  it("a substring tie without priorities goes to provider/model order", () => {
    expect(pick({ request: request(undefined, hints("claude")) })).toBe("claude/claude-haiku-4");
  });

  it("no hint matches → the session default: model, else recently used, else first tool-capable", () => {
    const r = request(undefined, hints("mistral"));
    expect(pick({ request: r, defaultModel: "gem/gemini-2.5-flash", recentlyUsed: "claude/claude-haiku-4" })).toBe("gem/gemini-2.5-flash");
    expect(pick({ request: r, recentlyUsed: "claude/claude-haiku-4" })).toBe("claude/claude-haiku-4");
    expect(pick({ request: r })).toBe("oai/gpt-4o");
  });

  it("an ineligible default (or one not configured) falls back to the first eligible model", () => {
    expect(pick({ request: request([IMAGE]), defaultModel: "claude/claude-haiku-4" })).toBe("claude/claude-sonnet-4");
    expect(pick({ request: request(), defaultModel: "nope/model" })).toBe("claude/claude-haiku-4");
    // No tool-capable model configured: the first eligible one.
    expect(selectModel({ providers: providers({ claude: CATALOG.claude }), request: request() }).id).toBe("claude/claude-haiku-4");
  });

  it("returns the provider and the spec of the choice", () => {
    const chosen = selectModel({ providers: CATALOG, request: request(undefined, hints("gemini")) });
    expect(chosen).toMatchObject({ providerId: "gem", modelId: "gemini-2.5-flash", id: "gem/gemini-2.5-flash", provider: { kind: "google" }, spec: { cost: 0.3 } });
  });
});

describe("selectModel: priorities break hint ties", () => {
  const gpt = hints("gpt");
  it("costPriority picks the cheapest of the tied models", () => {
    expect(pick({ request: request(undefined, { ...gpt, costPriority: 1 }) })).toBe("oai/gpt-4o-mini");
  });
  it("intelligencePriority picks the smartest", () => {
    expect(pick({ request: request(undefined, { ...gpt, intelligencePriority: 1 }) })).toBe("oai/gpt-4o");
  });
  it("weights combine: a little cost against a lot of intelligence", () => {
    expect(pick({ request: request(undefined, { ...gpt, costPriority: 0.2, intelligencePriority: 0.9 }) })).toBe("oai/gpt-4o");
    expect(pick({ request: request(undefined, { ...gpt, costPriority: 0.9, intelligencePriority: 0.2 }) })).toBe("oai/gpt-4o-mini");
  });
  it("an undeclared figure scores 0: claude-haiku-4 (no intelligence figure) loses to claude-sonnet-4", () => {
    expect(pick({ request: request(undefined, { ...hints("claude"), intelligencePriority: 1 }) })).toBe("claude/claude-sonnet-4");
    expect(pick({ request: request(undefined, { ...hints("claude"), speedPriority: 1 }) })).toBe("claude/claude-haiku-4");
  });
  it("priorities never override a hint's single match, nor the session default", () => {
    expect(pick({ request: request(undefined, { ...hints("gpt-4o"), costPriority: 1 }) })).toBe("oai/gpt-4o");
    expect(pick({ request: request(undefined, { costPriority: 1 }), defaultModel: "oai/gpt-4o" })).toBe("oai/gpt-4o");
  });
  it("priorityScores: min-max normalized, cost inverted, all-equal scores 1", () => {
    const tied = ["gpt-4o", "gpt-4o-mini"].map((modelId) => ({ providerId: "oai", modelId, id: `oai/${modelId}`, provider: CATALOG.oai!, spec: CATALOG.oai!.models[modelId]! }));
    expect(priorityScores(tied, { cost: 1 })).toEqual([0, 1]);
    expect(priorityScores(tied, { speed: 0.5, intelligence: 0.5 })).toEqual([0.5, 0.5]);
    expect(priorityScores(tied, {})).toEqual([0, 0]);
    const same = tied.map((m) => ({ ...m, spec: { ...m.spec, cost: 2 } }));
    expect(priorityScores(same, { cost: 0.4 })).toEqual([0.4, 0.4]);
  });
});
