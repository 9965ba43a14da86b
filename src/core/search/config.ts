/**
 * The one tuned search configuration, and how a caller's partial configuration is
 * merged over it and checked. The figures were tuned on the development queries of two
 * public tool-search benchmarks (bench/search-ablation.mjs shows what each setting buys)
 * and are the same for every catalog.
 */
import { SearchError } from "./errors.js";
import { FIELD_NAMES, type FieldConfig, type FieldName, type SearchConfig, type TokenizerConfig } from "./types.js";

/** Hits returned when a search names no limit. */
export const DEFAULT_SEARCH_LIMIT = 8;
/**
 * Query characters read at most; the rest is ignored. Bounds the work of a hostile query
 * (quote storms, one enormous word); real tasks are far shorter (the longest dev query: 1,400).
 */
export const MAX_SEARCH_QUERY_CHARS = 4_096;
/** A query word's prefixes are looked up only this far: no indexed term of use is longer. */
export const MAX_PREFIX_CHARS = 64;

export const DEFAULT_SEARCH_CONFIG: SearchConfig = deepFreeze({
  k1: 1.2,
  fields: {
    name: { weight: 1, b: 0.75 },
    nameWords: { weight: 4, b: 0.25 },
    description: { weight: 1, b: 0.5 },
    server: { weight: 0.5, b: 0.75 },
    serverDescription: { weight: 1, b: 0.5 },
    paramNames: { weight: 1.5, b: 0.5 },
    paramDescriptions: { weight: 1, b: 0.9 },
  },
  tokenizer: { splitIdentifiers: true, keepCompounds: true, stopWords: true, stemmer: "none", minTermLength: 2 },
  idfExponent: 0.5,
  dedupeQueryTerms: true,
  argumentWeight: 0.25,
  prefixWeight: 0.25,
  minPrefixLength: 6,
  nameCoverageBoost: 0.25,
  serverPooling: 0.3,
  clauseWeight: 0.5,
  schemaMaxDepth: 8,
  schemaMaxNodes: 500,
});

/** A configuration override: any top-level key, and any part of a field or tokenizer setting. */
export type SearchConfigOverride = Partial<Omit<SearchConfig, "fields" | "tokenizer">> & {
  fields?: Partial<Record<FieldName, Partial<FieldConfig>>>;
  tokenizer?: Partial<TokenizerConfig>;
};

const STEMMERS: ReadonlySet<string> = new Set(["none", "plural", "light", "porter"]);

/**
 * `override` over the defaults, field by field; the result is a fresh, frozen object.
 * Throws `SearchError("invalidConfig")` for a value out of range or of the wrong type.
 */
export function resolveSearchConfig(override: SearchConfigOverride = {}): SearchConfig {
  const base = DEFAULT_SEARCH_CONFIG;
  const fields = {} as Record<FieldName, FieldConfig>;
  for (const field of FIELD_NAMES) fields[field] = { ...base.fields[field], ...override.fields?.[field] };
  const config: SearchConfig = {
    k1: override.k1 ?? base.k1,
    fields,
    tokenizer: { ...base.tokenizer, ...override.tokenizer },
    idfExponent: override.idfExponent ?? base.idfExponent,
    dedupeQueryTerms: override.dedupeQueryTerms ?? base.dedupeQueryTerms,
    argumentWeight: override.argumentWeight ?? base.argumentWeight,
    prefixWeight: override.prefixWeight ?? base.prefixWeight,
    minPrefixLength: override.minPrefixLength ?? base.minPrefixLength,
    nameCoverageBoost: override.nameCoverageBoost ?? base.nameCoverageBoost,
    serverPooling: override.serverPooling ?? base.serverPooling,
    clauseWeight: override.clauseWeight ?? base.clauseWeight,
    schemaMaxDepth: override.schemaMaxDepth ?? base.schemaMaxDepth,
    schemaMaxNodes: override.schemaMaxNodes ?? base.schemaMaxNodes,
  };
  const problem = configProblem(config);
  if (problem !== undefined) throw new SearchError("invalidConfig", `Invalid search configuration: ${problem}`);
  return deepFreeze(config);
}

const isNumber = (value: unknown, min: number, max = Number.POSITIVE_INFINITY): boolean =>
  typeof value === "number" && Number.isFinite(value) && value >= min && value <= max;
const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;

/** The first thing wrong with a configuration (which may come from storage), if any. */
function configProblem(config: SearchConfig): string | undefined {
  if (!isNumber(config.k1, 0)) return "k1 must be a number ≥ 0";
  for (const field of FIELD_NAMES) {
    const { weight, b } = config.fields[field];
    if (!isNumber(weight, 0)) return `fields.${field}.weight must be a number ≥ 0`;
    if (!isNumber(b, 0, 1)) return `fields.${field}.b must be between 0 and 1`;
  }
  const { tokenizer } = config;
  for (const key of ["splitIdentifiers", "keepCompounds", "stopWords"] as const) {
    if (typeof tokenizer[key] !== "boolean") return `tokenizer.${key} must be a boolean`;
  }
  if (!STEMMERS.has(tokenizer.stemmer)) return `tokenizer.stemmer must be one of ${[...STEMMERS].join(", ")}`;
  if (!isCount(tokenizer.minTermLength)) return "tokenizer.minTermLength must be a whole number ≥ 0";
  if (!isNumber(config.idfExponent, 0)) return "idfExponent must be a number ≥ 0";
  if (typeof config.dedupeQueryTerms !== "boolean") return "dedupeQueryTerms must be a boolean";
  if (!isCount(config.minPrefixLength) || config.minPrefixLength < 1) return "minPrefixLength must be a whole number ≥ 1";
  for (const key of ["argumentWeight", "prefixWeight", "nameCoverageBoost", "serverPooling", "clauseWeight"] as const) {
    if (!isNumber(config[key], 0)) return `${key} must be a number ≥ 0`;
  }
  if (!isCount(config.schemaMaxDepth)) return "schemaMaxDepth must be a whole number ≥ 0";
  if (!isCount(config.schemaMaxNodes)) return "schemaMaxNodes must be a whole number ≥ 0";
  return undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
