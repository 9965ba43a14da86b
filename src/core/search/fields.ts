/**
 * What of a tool is searchable, field by field: its name whole and as words, its
 * description, its server's name and description, and the property names and
 * descriptions of its input schema. The schema walk follows every keyword that holds
 * subschemas (properties, items, anyOf/oneOf/allOf, $defs, …) to a bounded depth and
 * node count, so a huge or deeply nested schema costs a bounded amount of work.
 */
import type { Tokenizer } from "./tokenize.js";
import { FIELD_NAMES, type FieldName, type SearchConfig, type SearchDocument } from "./types.js";

export type FieldTerms = Record<FieldName, string[]>;
export type FieldTexts = Record<FieldName, string[]>;

export interface SchemaText {
  /** Property names, in the order met (repeats kept). */
  names: string[];
  /** `description` strings of the schema and every subschema. */
  descriptions: string[];
}

/** How a keyword holds subschemas: a map of them (`properties`, whose names are collected, or another), one, or a list. */
const SUBSCHEMA_KEYWORDS: ReadonlyMap<string, "properties" | "map" | "one" | "list" | "oneOrList"> = new Map([
  ["properties", "properties"],
  ["patternProperties", "map"],
  ["$defs", "map"],
  ["definitions", "map"],
  ["dependentSchemas", "map"],
  ["items", "oneOrList"],
  ["additionalProperties", "one"],
  ["additionalItems", "one"],
  ["contains", "one"],
  ["not", "one"],
  ["if", "one"],
  ["then", "one"],
  ["else", "one"],
  ["propertyNames", "one"],
  ["unevaluatedProperties", "one"],
  ["unevaluatedItems", "one"],
  ["anyOf", "list"],
  ["oneOf", "list"],
  ["allOf", "list"],
  ["prefixItems", "list"],
] as const);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Property names and descriptions, breadth-first from the root (depth 0) to `maxDepth`,
 * visiting at most `maxNodes` schema objects. Anything that is not an object is ignored.
 */
export function collectSchemaText(schema: unknown, maxDepth: number, maxNodes: number): SchemaText {
  const names: string[] = [];
  const descriptions: string[] = [];
  let queue: unknown[] = [schema];
  let visited = 0;
  for (let depth = 0; depth <= maxDepth && queue.length > 0; depth++) {
    const next: unknown[] = [];
    for (const node of queue) {
      if (!isObject(node)) continue;
      if (visited++ >= maxNodes) return { names, descriptions };
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        const value = node[key];
        if (key === "description") {
          if (typeof value === "string") descriptions.push(value);
          continue;
        }
        const kind = SUBSCHEMA_KEYWORDS.get(key);
        if (kind === undefined) continue;
        if (kind === "properties" || kind === "map") {
          if (!isObject(value)) continue;
          for (const name in value) {
            if (!Object.hasOwn(value, name)) continue;
            if (kind === "properties") names.push(name);
            next.push(value[name]);
          }
        } else if (Array.isArray(value)) {
          if (kind !== "one") for (const child of value) next.push(child);
        } else if (kind !== "list") next.push(value);
      }
    }
    queue = next;
  }
  return { names, descriptions };
}

/** How a field's text becomes terms: one identifier term, words without compounds, or plain text. */
export type FieldStyle = "identifier" | "words" | "text";

export const FIELD_STYLES: Readonly<Record<FieldName, FieldStyle>> = {
  name: "identifier",
  nameWords: "words",
  description: "text",
  server: "text",
  serverDescription: "text",
  paramNames: "text",
  paramDescriptions: "text",
};

/** Every field's texts for one document; a field with weight 0 gets none. */
export function fieldTexts(doc: SearchDocument, config: SearchConfig): FieldTexts {
  const used = (field: FieldName): boolean => config.fields[field].weight > 0;
  const schema = used("paramNames") || used("paramDescriptions")
    ? collectSchemaText(doc.inputSchema, config.schemaMaxDepth, config.schemaMaxNodes)
    : { names: [], descriptions: [] };
  const texts: FieldTexts = {
    name: [doc.name],
    nameWords: [doc.name.replace(/[_-]+/g, " ")],
    description: doc.description ? [doc.description] : [],
    server: [doc.server],
    serverDescription: doc.serverDescription ? [doc.serverDescription] : [],
    paramNames: schema.names,
    paramDescriptions: schema.descriptions,
  };
  for (const field of FIELD_NAMES) if (!used(field)) texts[field] = [];
  return texts;
}

/** Every field's terms for one document, as the index counts them. */
export function extractFields(doc: SearchDocument, config: SearchConfig, tokenizer: Tokenizer): FieldTerms {
  const texts = fieldTexts(doc, config);
  const fields = {} as FieldTerms;
  for (const field of FIELD_NAMES) {
    const style = FIELD_STYLES[field];
    fields[field] = texts[field].flatMap((text) =>
      style === "identifier" ? tokenizer.identifier(text) : tokenizer.terms(text, style === "text" && config.tokenizer.keepCompounds),
    );
  }
  return fields;
}
