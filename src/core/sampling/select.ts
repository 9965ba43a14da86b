/**
 * Model selection for one sampling request. Models are considered in `provider/model`
 * order (sorted ids, so the answer does not depend on how configs were merged).
 *
 * 1. Eligibility: the request's modalities against the model's declared `input` ∩ its
 *    adapter's capabilities (image MIME allow-list; audio MIME per adapter, "unknown"
 *    adapters disqualified). Every ineligible model is kept with its reason.
 * 2. Hints, in the server's order: the first hint that matches an eligible model exactly
 *    (model id or `provider/model`, case-insensitive) wins; failing that, the first hint
 *    that is a substring of an eligible id. A hint matching several models leaves a tie.
 * 3. No hint matched: the session default — `defaultModel`, else `recentlyUsed`, else the
 *    first tool-capable model — when eligible, else the first eligible model.
 * 4. Ties within a hint are broken by the server's priorities (see `priorityScore`), then
 *    by `provider/model` order.
 * No eligible model → InvalidParams with `data.rejected` = every model and why.
 */
import { invalidParams } from "./errors.js";
import { adapterCapabilities, adapterTakesAudio, type ModelSpec, type Provider, type Providers } from "./providers.js";
import type { ValidatedSampling } from "./request.js";

export interface SelectModelOptions {
  providers: Providers;
  request: ValidatedSampling;
  /** The session's `model` ("provider/model"). */
  defaultModel?: string;
  /** The model this session sampled with last ("provider/model"). */
  recentlyUsed?: string;
}

export interface SelectedModel {
  providerId: string;
  modelId: string;
  /** "provider/model", the `model` of the sampling result. */
  id: string;
  spec: ModelSpec;
  provider: Provider;
}

export interface RejectedModel {
  model: string;
  reason: string;
}

/** Every configured model in `provider/model` order. */
function allModels(providers: Providers): SelectedModel[] {
  const out: SelectedModel[] = [];
  for (const [providerId, provider] of Object.entries(providers)) {
    for (const [modelId, spec] of Object.entries(provider.models)) out.push({ providerId, modelId, id: `${providerId}/${modelId}`, spec, provider });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Why a model cannot take this request, or undefined when it can. */
export function ineligibility(model: SelectedModel, request: ValidatedSampling): string | undefined {
  const { input } = model.spec;
  const capabilities = adapterCapabilities(model.provider.kind);
  if (request.modalities.image && !input.includes("image")) return "the model does not take image input";
  if (request.modalities.audio) {
    if (!input.includes("audio")) return "the model does not take audio input";
    if (capabilities.audio === "none") return `the ${model.provider.kind} adapter carries no audio`;
    if (capabilities.audio === "unknown") return `the ${model.provider.kind} adapter's audio support is unknown`;
    const refused = request.modalities.audioMimes.filter((mime) => !adapterTakesAudio(capabilities, mime));
    if (refused.length > 0) return `the ${model.provider.kind} adapter does not take ${refused.join(", ")}`;
  }
  return undefined;
}

/** Which of `models` a hint names: exact matches if any, else substring matches. */
function hintMatches(hint: string, models: SelectedModel[]): SelectedModel[] {
  const wanted = hint.toLowerCase();
  const exact = models.filter((m) => m.modelId.toLowerCase() === wanted || m.id.toLowerCase() === wanted);
  if (exact.length > 0) return exact;
  return models.filter((m) => m.id.toLowerCase().includes(wanted));
}

/**
 * Priority score of each tied model, highest wins: Σ priority × figure, where each figure is
 * min-max normalized across the tied models to [0, 1] (cost inverted: the cheapest scores 1;
 * speed and intelligence: the highest scores 1; all equal: 1 each). A model that does not
 * declare a figure scores 0 on it, so an undeclared figure never beats a declared one.
 */
export function priorityScores(models: SelectedModel[], priorities: ValidatedSampling["priorities"]): number[] {
  const scores = models.map(() => 0);
  for (const dimension of ["cost", "speed", "intelligence"] as const) {
    const weight = priorities[dimension] ?? 0;
    if (weight <= 0) continue;
    const figures = models.map((m) => m.spec[dimension]);
    const declared = figures.filter((f): f is number => f !== undefined);
    if (declared.length === 0) continue;
    const min = Math.min(...declared);
    const max = Math.max(...declared);
    figures.forEach((figure, i) => {
      if (figure === undefined) return;
      const normalized = max === min ? 1 : dimension === "cost" ? (max - figure) / (max - min) : (figure - min) / (max - min);
      scores[i] = scores[i]! + weight * normalized;
    });
  }
  return scores;
}

function breakTie(models: SelectedModel[], priorities: ValidatedSampling["priorities"]): SelectedModel {
  const scores = priorityScores(models, priorities);
  let best = 0;
  scores.forEach((score, i) => {
    if (score > scores[best]!) best = i;
  });
  return models[best]!;
}

export function selectModel({ providers, request, defaultModel, recentlyUsed }: SelectModelOptions): SelectedModel {
  const models = allModels(providers);
  const rejected: RejectedModel[] = [];
  const eligible: SelectedModel[] = [];
  for (const model of models) {
    const reason = ineligibility(model, request);
    if (reason) rejected.push({ model: model.id, reason });
    else eligible.push(model);
  }
  if (eligible.length === 0) {
    const needs = request.contentKinds.join(", ") || "text";
    const message = models.length === 0 ? "no sampling models are configured" : `no configured model can take this request (${needs})`;
    throw invalidParams(message, { rejected });
  }

  for (const hint of request.hints) {
    const matches = hintMatches(hint, eligible);
    if (matches.length > 0) return breakTie(matches, request.priorities);
  }

  const sessionDefault = defaultModel ?? recentlyUsed ?? models.find((m) => m.spec.toolCall === true)?.id;
  return eligible.find((m) => m.id === sessionDefault) ?? eligible[0]!;
}
