/**
 * Code mode's typed declarations: JSON Schema → TypeScript, so a model writing a script
 * sees each tool as a typed function (`tools.server_tool(args): Promise<Result>`).
 *
 * Real schemas are messy, so the translation is total and conservative: anything it
 * cannot express precisely becomes `unknown` (never a wrong type). Covered: objects
 * (required/optional, `additionalProperties`, `patternProperties`), enums and `const`,
 * `anyOf`/`oneOf` (unions), `allOf` (intersections), arrays and tuples (`prefixItems`,
 * draft-7 `items: [...]`), type lists and OpenAPI `nullable`, local `$ref`s (`#`,
 * `#/$defs/…`, `#/definitions/…`), descriptions and defaults as JSDoc. A `$ref` met again
 * inside its own expansion (recursion) becomes a named type alias declared beside the
 * tools when the cycle passes through an object property, array item or tuple element
 * (TypeScript accepts those), `unknown` otherwise; nesting beyond `maxDepth` becomes
 * `unknown`; a signature longer than `maxTypeChars` is rendered again shallower.
 *
 * Names: catalog names match ^[a-zA-Z0-9_-]{1,64}$, so a name with `-` is not an
 * identifier. Every tool is a property of the one declared `tools` object (never a
 * top-level identifier), quoted when it is not an identifier: the script calls it with
 * bracket access, `tools["everything_get-sum"]({a: 1, b: 2})`.
 */

export interface DeclaredTool {
  /** The catalog (model-facing) name: the property of `tools`. */
  name: string;
  server: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

export interface DeclarationOptions {
  /** Nesting (objects, arrays, unions) rendered before a type becomes `unknown`. */
  maxDepth?: number;
  /** Longest rendered type of one tool's arguments or result before it is rendered shallower. */
  maxTypeChars?: number;
  /** Tool descriptions are cut to this many characters. */
  maxToolDescriptionChars?: number;
  /** Property descriptions are cut to this many characters. */
  maxPropertyDescriptionChars?: number;
  /** Enums with more members are typed by their base type. */
  maxEnumMembers?: number;
  /** Objects with more properties keep only this many (and an index signature for the rest). */
  maxProperties?: number;
  /** Schema nodes rendered for one type before giving up on it (shared `$ref`s can multiply the work). */
  maxNodes?: number;
}

export const DECLARATION_DEFAULTS: Required<DeclarationOptions> = {
  maxDepth: 8,
  maxTypeChars: 6_000,
  maxToolDescriptionChars: 600,
  maxPropertyDescriptionChars: 240,
  maxEnumMembers: 64,
  maxProperties: 100,
  maxNodes: 4_000,
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const SIMPLE_TYPE = /^[A-Za-z_$][A-Za-z0-9_$]*(\[\])*$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A property key or member name as TypeScript accepts it: bare when an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** How a script reaches a tool: `tools.name`, or `tools["name-with-dash"]`. */
export function toolAccess(name: string): string {
  return IDENTIFIER.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
}

/**
 * Text safe inside a JSDoc block: no comment terminator, one line per line, cut to `max`.
 * Backtick fences are broken up too: the declarations sit inside a markdown code block.
 */
function docLines(text: string, max: number): string[] {
  let flat = text.replace(/\r\n?/g, "\n").trim();
  if (flat.length > max) flat = `${flat.slice(0, max - 1).trimEnd()}…`;
  return flat
    .replace(/\*\//g, "*\\/")
    .replace(/`{3,}/g, (fence) => fence.split("").join("\u200b"))
    .split("\n")
    .map((line) => line.trimEnd());
}

function jsDoc(lines: string[], indent: string): string {
  const body = lines.filter((line, i) => line !== "" || (i > 0 && i < lines.length - 1));
  if (body.length === 0) return "";
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((line) => `${indent} *${line ? ` ${line}` : ""}`).join("\n")}\n${indent} */\n`;
}

function literal(value: unknown): string | undefined {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "number";
  if (typeof value === "boolean") return String(value);
  if (value === null) return "null";
  return undefined;
}

function baseTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "unknown[]";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "unknown";
  }
}

/** `A | B`, flattened and deduplicated: `unknown` absorbs everything, `never` disappears. */
function union(members: string[]): string {
  const seen: string[] = [];
  for (const member of members) {
    if (member === "unknown") return "unknown";
    if (member !== "never" && !seen.includes(member)) seen.push(member);
  }
  if (seen.length === 0) return "never";
  return seen.map((m, _i, all) => (all.length > 1 && needsParens(m) ? `(${m})` : m)).join(" | ");
}

/** `A & B`; `unknown` parts are dropped (they add nothing). */
function intersection(parts: string[]): string {
  const kept = parts.filter((p, i) => p !== "unknown" && parts.indexOf(p) === i);
  if (kept.includes("never")) return "never";
  if (kept.length === 0) return "unknown";
  return kept.map((p) => (kept.length > 1 && needsParens(p) ? `(${p})` : p)).join(" & ");
}

/** Does a type need parentheses inside a union, intersection or array? (It has a top-level `|` or `&`.) */
function needsParens(type: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < type.length; i++) {
    const ch = type[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"') quote = ch;
    else if (ch === "{" || ch === "[" || ch === "(" || ch === "<") depth++;
    else if (ch === "}" || ch === "]" || ch === ")" || ch === ">") depth--;
    else if (depth === 0 && (ch === "|" || ch === "&")) return true;
  }
  return false;
}

function arrayOf(item: string): string {
  return SIMPLE_TYPE.test(item) ? `${item}[]` : `Array<${item}>`;
}

interface Context {
  root: unknown;
  options: Required<DeclarationOptions>;
  /** `$ref`s being expanded on the current path (the recursion guard), with the member depth they started at. */
  expanding: Map<string, number>;
  /** Object properties, array items and tuple elements entered on the current path. */
  memberDepth: number;
  /** Schema nodes rendered so far (the work cap). */
  nodes: number;
  /** Where recursive `$ref`s get names; absent: they become `unknown`. */
  aliases?: Aliases;
}

/** Named types for recursive `$ref`s of one signature: ref → name, and the names every signature already took. */
interface Aliases {
  prefix: string;
  names: Map<string, string>;
  taken: Set<string>;
}

function aliasFor(aliases: Aliases, ref: string): string {
  const known = aliases.names.get(ref);
  if (known) return known;
  const last = ref === "#" ? "Root" : (ref.split("/").at(-1) ?? "Def");
  const base = `${aliases.prefix}_${last}`.replace(/[^A-Za-z0-9_$]/g, "_").replace(/^(?=[0-9])/, "_");
  let name = base;
  for (let n = 2; aliases.taken.has(name); n++) name = `${base}_${n}`;
  aliases.taken.add(name);
  aliases.names.set(ref, name);
  return name;
}

/** Thrown inside a rendering that passed `maxNodes`; caught where the rendering started. */
class TooLarge extends Error {}

/** Resolves a local JSON pointer (`#`, `#/$defs/x`, `#/definitions/x`, `#/properties/a/items`). */
function resolveRef(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = /^\d+$/.test(segment) ? node[Number(segment)] : undefined;
    else if (isRecord(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

function render(schema: unknown, ctx: Context, depth: number, indent: string): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isRecord(schema)) return "unknown";
  if (depth > ctx.options.maxDepth) return "unknown";
  if (++ctx.nodes > ctx.options.maxNodes) throw new TooLarge();

  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    const startedAt = ctx.expanding.get(ref);
    if (startedAt !== undefined) {
      // A cycle through a member can be a named recursive type; a bare one (`A = A | …`) cannot.
      return ctx.aliases && ctx.memberDepth > startedAt ? aliasFor(ctx.aliases, ref) : "unknown";
    }
    const target = resolveRef(ctx.root, ref);
    if (target === undefined) return "unknown";
    ctx.expanding.set(ref, ctx.memberDepth);
    try {
      // Draft 2019+: keywords beside $ref apply too; earlier drafts ignore them. Both are met by intersecting.
      const { $ref: _ref, ...rest } = schema;
      const siblings = Object.keys(rest).some((k) => !ANNOTATIONS.has(k)) ? render(rest, ctx, depth, indent) : "unknown";
      return intersection([render(target, ctx, depth, indent), siblings]);
    } finally {
      ctx.expanding.delete(ref);
    }
  }

  const parts: string[] = [];
  const own = ownType(schema, ctx, depth, indent);
  if (own !== undefined) parts.push(own);
  for (const key of ["anyOf", "oneOf"] as const) {
    const variants = schema[key];
    if (Array.isArray(variants) && variants.length > 0) parts.push(union(variants.map((v) => render(v, ctx, depth + 1, indent))));
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) parts.push(render(part, ctx, depth + 1, indent));
  let type = intersection(parts);
  if (schema.nullable === true && type !== "unknown") type = union([type, "null"]);
  return type;
}

/** Keywords that do not constrain a value (a `$ref` beside only these is the target alone). */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$id", "$schema", "$defs", "definitions"]);

/** The type a schema's own keywords give (`const`, `enum`, `type`, object and array keywords); undefined when none. */
function ownType(schema: Schema, ctx: Context, depth: number, indent: string): string | undefined {
  if ("const" in schema) return literal(schema.const) ?? baseTypeOf(schema.const);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    if (values.length === 0) return "never";
    if (values.length > ctx.options.maxEnumMembers) return union(values.map(baseTypeOf));
    return union(values.map((v) => literal(v) ?? baseTypeOf(v)));
  }
  const types = Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : typeof schema.type === "string" ? [schema.type] : [];
  if (types.length === 0) {
    if (isRecord(schema.properties) || "additionalProperties" in schema || isRecord(schema.patternProperties) || Array.isArray(schema.required)) types.push("object");
    else if ("items" in schema || Array.isArray(schema.prefixItems)) types.push("array");
    else return undefined;
  }
  return union(types.map((t) => typeName(t, schema, ctx, depth, indent)));
}

function typeName(type: string, schema: Schema, ctx: Context, depth: number, indent: string): string {
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "object":
      return objectType(schema, ctx, depth, indent);
    case "array":
      return arrayType(schema, ctx, depth, indent);
    default:
      return "unknown";
  }
}

function objectType(schema: Schema, ctx: Context, depth: number, indent: string): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const keys = Object.keys(properties);
  for (const name of required) if (!Object.hasOwn(properties, name)) keys.push(name);
  const kept = keys.slice(0, ctx.options.maxProperties);

  // Extra keys: typed by additionalProperties when it is a schema; absent means "not declared" (left out, so a misspelt key is caught).
  const additional = schema.additionalProperties;
  let rest: string | undefined;
  if (isRecord(additional)) rest = render(additional, ctx, depth + 1, `${indent}  `);
  else if (additional === true || isRecord(schema.patternProperties) || kept.length < keys.length) rest = "unknown";
  if (rest === "never") rest = undefined;

  if (kept.length === 0) return rest === undefined ? (additional === false ? "Record<string, never>" : "Record<string, unknown>") : `Record<string, ${rest}>`;

  const inner = `${indent}  `;
  const members: Array<{ doc: string; text: string }> = [];
  for (const name of kept) {
    const prop = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const type = renderMember(prop, ctx, depth + 1, inner);
    const doc = isRecord(prop) ? propertyDoc(prop, ctx.options.maxPropertyDescriptionChars) : [];
    members.push({ doc: jsDoc(doc, inner), text: `${propertyKey(name)}${required.has(name) ? "" : "?"}: ${type};` });
  }
  // Declared properties must fit an index signature, so extra keys of another type widen it to unknown.
  if (rest !== undefined) members.push({ doc: "", text: "[key: string]: unknown;" });
  // Small undocumented objects stay on one line (tokens are the model's context).
  const oneLine = `{ ${members.map((m) => m.text).join(" ")} }`;
  if (members.every((m) => !m.doc && !m.text.includes("\n")) && oneLine.length <= INLINE_OBJECT_CHARS) return oneLine;
  return `{\n${members.map((m) => `${m.doc}${inner}${m.text}`).join("\n")}\n${indent}}`;
}

/** Longest object type kept on one line. */
const INLINE_OBJECT_CHARS = 80;

function propertyDoc(prop: Schema, max: number): string[] {
  const lines: string[] = [];
  const text = typeof prop.description === "string" ? prop.description : typeof prop.title === "string" ? prop.title : "";
  if (text.trim()) lines.push(...docLines(text, max));
  if ("default" in prop) {
    const shown = JSON.stringify(prop.default as Json);
    if (shown !== undefined && shown.length <= 80) lines.push(`@default ${shown.replace(/\*\//g, "*\\/")}`);
  }
  return lines;
}

function arrayType(schema: Schema, ctx: Context, depth: number, indent: string): string {
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  if (tuple) {
    const restSchema = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
    const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
    const elements = tuple.map((item, i) => {
      const type = renderMember(item, ctx, depth + 1, indent);
      return i < minItems ? type : `${needsParens(type) ? `(${type})` : type}?`;
    });
    if (restSchema !== false) elements.push(`...${arrayOf(renderMember(restSchema ?? true, ctx, depth + 1, indent))}`);
    return `[${elements.join(", ")}]`;
  }
  return arrayOf(renderMember(schema.items ?? true, ctx, depth + 1, indent));
}

/** A property, item or element: a place where a recursive type may refer to itself. (Map values are not: `Record` is an alias.) */
function renderMember(schema: unknown, ctx: Context, depth: number, indent: string): string {
  ctx.memberDepth++;
  try {
    return render(schema, ctx, depth, indent);
  } finally {
    ctx.memberDepth--;
  }
}

/**
 * One schema as a TypeScript type. `root` is the document its `$ref`s point into (the
 * schema itself unless it is part of a larger one); `indent` is the column it starts at.
 */
export function schemaToType(schema: unknown, options: DeclarationOptions = {}, root: unknown = schema, indent = ""): string {
  return tryRender(schema, { ...DECLARATION_DEFAULTS, ...options }, root, indent) ?? "unknown";
}

/** One rendering, or undefined when it passed `maxNodes`. */
function tryRender(schema: unknown, options: Required<DeclarationOptions>, root: unknown, indent: string, aliases?: Aliases): string | undefined {
  try {
    // With aliases, the root counts as expanding: `#` met inside a member names the root type at once.
    const expanding = new Map<string, number>(aliases && root === schema ? [["#", 0]] : []);
    return render(schema, { root, options, expanding, memberDepth: 0, nodes: 0, ...(aliases ? { aliases } : {}) }, 0, indent);
  } catch (error) {
    if (error instanceof TooLarge) return undefined;
    throw error;
  }
}

/** A type and the `type Name = …;` declarations of the recursive types it names. */
interface TypeWithAliases {
  type: string;
  aliases: string[];
}

/**
 * One type with its recursive aliases: each alias body is rendered from its `$ref` target
 * with that ref already expanding, so its own cycles name itself; aliases found in alias
 * bodies are rendered in turn. The size and work caps count everything.
 */
function renderWithAliases(schema: unknown, options: Required<DeclarationOptions>, indent: string, prefix: string, taken: Set<string> | undefined): TypeWithAliases | undefined {
  if (!taken) {
    const type = tryRender(schema, options, schema, indent);
    return type === undefined ? undefined : { type, aliases: [] };
  }
  const aliases: Aliases = { prefix, names: new Map(), taken: new Set(taken) };
  const type = tryRender(schema, options, schema, indent, aliases);
  if (type === undefined) return undefined;
  const declared: string[] = [];
  let size = type.length;
  for (let i = 0; i < aliases.names.size; i++) {
    const [ref, name] = [...aliases.names][i]!;
    const target = resolveRef(schema, ref);
    const ctx: Context = { root: schema, options, expanding: new Map([[ref, -1]]), memberDepth: 0, nodes: 0, aliases };
    let body: string;
    try {
      body = render(target, ctx, 0, "");
    } catch (error) {
      if (error instanceof TooLarge) return undefined;
      throw error;
    }
    size += body.length;
    if (size > options.maxTypeChars) return undefined;
    declared.push(`type ${name} = ${body};`);
  }
  for (const name of aliases.names.values()) taken.add(name);
  return { type, aliases: declared };
}

/** Renders within `maxTypeChars` and `maxNodes`: shallower and shallower, finally `fallback`. */
function boundedType(schema: unknown, options: Required<DeclarationOptions>, indent: string, fallback: string, prefix: string, taken: Set<string> | undefined): TypeWithAliases {
  for (let depth = options.maxDepth; depth >= 1; depth = depth > 4 ? 4 : depth - 1) {
    const rendered = renderWithAliases(schema, { ...options, maxDepth: depth }, indent, prefix, taken);
    if (rendered !== undefined && rendered.type.length <= options.maxTypeChars) return rendered;
  }
  return { type: fallback, aliases: [] };
}

function hasRequired(schema: unknown): boolean {
  return isRecord(schema) && Array.isArray(schema.required) && schema.required.length > 0;
}

/**
 * One tool as a method of the `tools` object (with its description as JSDoc), and the
 * recursive type aliases it uses; `taken` holds the alias names already declared (without
 * it, recursive parts are `unknown`).
 */
function toolParts(tool: DeclaredTool, options: DeclarationOptions, indent: string, taken: Set<string> | undefined): { signature: string; aliases: string[] } {
  const resolved = { ...DECLARATION_DEFAULTS, ...options };
  const args = boundedType(tool.inputSchema, resolved, indent, "Record<string, unknown>", `${tool.name}_Args`, taken);
  const result = tool.outputSchema === undefined ? { type: "unknown", aliases: [] } : boundedType(tool.outputSchema, resolved, indent, "unknown", `${tool.name}_Result`, taken);
  const doc = tool.description?.trim() ? docLines(tool.description, resolved.maxToolDescriptionChars) : [];
  // Arguments may be left out only when nothing is required (and the type accepts {}).
  const optional = !hasRequired(tool.inputSchema) && args.type !== "never" ? "?" : "";
  const argType = args.type === "unknown" ? "Record<string, unknown>" : args.type;
  return {
    signature: `${jsDoc(doc, indent)}${indent}${propertyKey(tool.name)}(args${optional}: ${argType}): Promise<${result.type}>;`,
    aliases: [...args.aliases, ...result.aliases],
  };
}

/** One tool as a method of the `tools` object, with its description as JSDoc (alone, recursive parts are `unknown`: no place for aliases). */
export function toolSignature(tool: DeclaredTool, options: DeclarationOptions = {}, indent = "  "): string {
  return toolParts(tool, options, indent, undefined).signature;
}

/** A comment line naming a server (server names are free text: kept on one line, no terminator). */
function serverHeading(server: string, count: number): string {
  const name = server.replace(/\s+/g, " ").slice(0, 128);
  return `  // ── server ${JSON.stringify(name)}: ${count} tool${count === 1 ? "" : "s"} ──`;
}

/** Groups tools by server, keeping the given (catalog) order inside each group and the order servers first appear. */
export function groupByServer<T extends { server: string }>(tools: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const tool of tools) {
    const group = groups.get(tool.server);
    if (group) group.push(tool);
    else groups.set(tool.server, [tool]);
  }
  return groups;
}

/**
 * The declaration of the `tools` object: one typed method per tool, in sections per
 * server, after the recursive type aliases they use. A script file (no imports or
 * exports), so its names are global. Undefined as soon as it passes `maxChars`.
 */
export function toolsDeclaration(tools: readonly DeclaredTool[], options: DeclarationOptions = {}, maxChars = Infinity): string | undefined {
  const sections: string[] = [];
  const aliases: string[] = [];
  const taken = new Set<string>();
  let size = 0;
  for (const [server, group] of groupByServer(tools)) {
    const lines = [serverHeading(server, group.length)];
    for (const tool of group) {
      const parts = toolParts(tool, options, "  ", taken);
      size += parts.signature.length + 1 + parts.aliases.reduce((n, a) => n + a.length + 1, 0);
      // Stop as soon as it cannot fit: a large catalog is not rendered in full only to be dropped.
      if (size > maxChars) return undefined;
      lines.push(parts.signature);
      aliases.push(...parts.aliases);
    }
    sections.push(lines.join("\n"));
  }
  const recursive = aliases.length ? `/** Recursive types of the tools below. */\n${aliases.join("\n")}\n` : "";
  return `${recursive}declare const tools: {\n${sections.join("\n\n")}${sections.length ? "\n" : ""}};`;
}

/** What the sandbox offers besides `tools` (the exec contract), declared once. */
export const SANDBOX_GLOBALS = `/** Lines logged here come back with the script's result (as logs). */
declare const console: { log(...values: unknown[]): void; info(...values: unknown[]): void; warn(...values: unknown[]): void; error(...values: unknown[]): void };
/** Calls any tool by its catalog name; resolves like the matching tools method. Throws when the tool answers with isError. */
declare function callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
/** Searches the catalog (BM25 over names, descriptions, schemas); inputSchema holds the JSON Schema of the tool's arguments. */
declare function search(query: string, limit?: number): Promise<Array<{ name: string; server: string; description: string; inputSchema?: Record<string, unknown> }>>;`;

/** The full declarations: the sandbox globals and the typed `tools` object. */
export function codeModeDeclarations(tools: readonly DeclaredTool[], options: DeclarationOptions = {}): string {
  return `${SANDBOX_GLOBALS}\n${toolsDeclaration(tools, options)!}\n`;
}

/** The same, or undefined as soon as the tool declarations pass `maxChars` (they could not fit a budget). */
export function boundedDeclarations(tools: readonly DeclaredTool[], maxChars: number, options: DeclarationOptions = {}): string | undefined {
  const declared = toolsDeclaration(tools, options, maxChars);
  return declared === undefined ? undefined : `${SANDBOX_GLOBALS}\n${declared}\n`;
}
