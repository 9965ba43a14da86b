/**
 * Builds the AI SDK language model for a chosen `provider/model` with the matching
 * `@ai-sdk/*` adapter. `fetch` is injectable (tests, a Worker's outbound policy). The API
 * key goes to the adapter only: it is never part of an error message or a log line.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { internalError } from "./errors.js";
import type { Provider } from "./providers.js";

export interface LanguageModelOptions {
  fetch?: typeof globalThis.fetch;
}

export function createLanguageModel(providerId: string, provider: Provider, modelId: string, options: LanguageModelOptions = {}): LanguageModel {
  const common = {
    ...(provider.apiKey === undefined ? {} : { apiKey: provider.apiKey }),
    ...(provider.headers === undefined ? {} : { headers: provider.headers }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  switch (provider.kind) {
    case "openai-compatible":
    // Workers AI over its OpenAI-compatible endpoint (…/accounts/<id>/ai/v1).
    case "workers-ai": {
      if (!provider.baseURL) throw internalError(`provider ${providerId} (${provider.kind}) needs a baseURL`, { provider: providerId, kind: provider.kind });
      return createOpenAICompatible({ name: providerId, baseURL: provider.baseURL, includeUsage: true, ...common }).chatModel(modelId);
    }
    case "openai":
      return createOpenAI({ ...(provider.baseURL ? { baseURL: provider.baseURL } : {}), ...common })(modelId);
    case "anthropic":
      return createAnthropic({ ...(provider.baseURL ? { baseURL: provider.baseURL } : {}), ...common })(modelId);
    case "google":
      return createGoogleGenerativeAI({ ...(provider.baseURL ? { baseURL: provider.baseURL } : {}), ...common })(modelId);
    default:
      throw internalError(`provider ${providerId}: kind "${provider.kind}" is not supported (openai-compatible, openai, anthropic, google, workers-ai)`, {
        provider: providerId,
        kind: provider.kind,
      });
  }
}
