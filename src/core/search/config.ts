/**
 * The one tuned search configuration, and how a caller's partial configuration is
 * merged over it. The figures were tuned on the development queries of two public
 * tool-search benchmarks (see bench/search-ablation.mjs for what each setting buys)
 * and are the same for every catalog.
 */
import { SearchError } from "./errors.js";
import { FIELD_NAMES, type FieldConfig, type FieldName, type SearchConfig, type TokenizerConfig } from "./types.js";

/** Hits returned when a search names no limit. */
export const DEFAULT_SEARCH_LIMIT = 8;

export const DEFAULT_SEARCH_CONFIG: SearchConfig = deepFreeze({
  k1: 1.2,
  fields: {
    name: { weight: 1, b: 0.75 },
    nameWords: { weight: 1, b: 0.75 },
    description: { weight: 1, b: 0.75 },
    server: { weight: 1, b: 0.75 },
    serverDescription: { weight: 1, b: 0.75 },
    paramNames: { weight: 1, b: 0.75 },
    paramDescriptions: { weight: 1, b: 0.75 },
  },
  tokenizer: { splitIdentifiers: true, keepCompounds: true, stopWords: true, stemmer: "light", minTermLength: 2 },
  dedupeQueryTerms: true,
  schemaMaxDepth: 8,
  schemaMaxNodes: 500,
  nameCoverageBoost: 0,
  serverCoverageBoost: 0,
  serverPooling: 0,
  idfExponent: 1,
  coordExponent: 0,
  dropNumbers: false,
  clauseWeight: 0,
  argumentWeight: 1,
  clauseMode: "sum",
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
    dedupeQueryTerms: override.dedupeQueryTerms ?? base.dedupeQueryTerms,
    schemaMaxDepth: override.schemaMaxDepth ?? base.schemaMaxDepth,
    schemaMaxNodes: override.schemaMaxNodes ?? base.schemaMaxNodes,
    nameCoverageBoost: override.nameCoverageBoost ?? base.nameCoverageBoost,
    serverCoverageBoost: override.serverCoverageBoost ?? base.serverCoverageBoost,
    serverPooling: override.serverPooling ?? base.serverPooling,
    idfExponent: override.idfExponent ?? base.idfExponent,
    coordExponent: override.coordExponent ?? base.coordExponent,
    dropNumbers: override.dropNumbers ?? base.dropNumbers,
    clauseWeight: override.clauseWeight ?? base.clauseWeight,
    argumentWeight: override.argumentWeight ?? base.argumentWeight,
    clauseMode: override.clauseMode ?? base.clauseMode,
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
  if (typeof config.dedupeQueryTerms !== "boolean") return "dedupeQueryTerms must be a boolean";
  if (!isCount(config.schemaMaxDepth)) return "schemaMaxDepth must be a whole number ≥ 0";
  if (!isCount(config.schemaMaxNodes)) return "schemaMaxNodes must be a whole number ≥ 0";
  if (!isNumber(config.nameCoverageBoost, 0)) return "nameCoverageBoost must be a number ≥ 0";
  if (!isNumber(config.serverCoverageBoost, 0)) return "serverCoverageBoost must be a number ≥ 0";
  return undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
