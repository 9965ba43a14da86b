/**
 * The OpenAPI 3.1 document of HTTP API v1, generated from the route table and the zod
 * schemas (zod's own JSON Schema output, draft 2020-12, which is OpenAPI 3.1's dialect).
 * Every schema exported from `schemas.ts` becomes a named component and is referenced by
 * name wherever a route or another schema uses it. Pure; the Worker serves the result at
 * `GET /v1/openapi.json`.
 */
import { z } from "zod";
import { pathParameters, ROUTES, type RouteAuth, type RouteEntry } from "./routes.js";
import * as S from "./schemas.js";

export const OPENAPI_VERSION = "3.1.0";

const COMPONENT_REF = "#/components/schemas/";

type JsonObject = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request (badRequest, invalidConfig, unknownKeys)",
  401: "Unauthorized: no, bad, expired or revoked token (code unauthorized; WWW-Authenticate: Bearer …)",
  404: "Not found (notFound, sessionNotFound, serverNotFound, toolNotFound)",
  413: "Request body over 16 MiB (payloadTooLarge)",
  429: "Too many event subscribers on this session (tooManySubscribers)",
  499: "Cancelled: the caller went away",
  500: "Internal error",
  502: "Upstream server unavailable or failing, or its result over the size cap (serverUnavailable, upstreamError, resultTooLarge)",
  503: "Not configured on this deployment (authNotConfigured: no API authentication; notConfigured: e.g. no CREDENTIALS_KEY for OAuth credentials), or the session was interrupted mid-request (sessionUnavailable; its state is kept, retry)",
  504: "Upstream timeout",
};

/** Security requirements by what a route needs (schemes in {@link SECURITY_SCHEMES}). */
const SECURITY: Record<RouteAuth, JsonObject[]> = {
  token: [{ bearer: [] }, { oauth2: [] }],
  bridgeToken: [{ bridgeToken: [] }],
  none: [],
};

const SECURITY_SCHEMES: Record<string, JsonObject> = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description:
      "An access token of mcp-edge's own OAuth provider, or a service token from SERVICE_TOKENS. Under the local dev config (AUTH_MODE=local-dev) a request without a token acts as the principal `local`.",
  },
  oauth2: {
    type: "oauth2",
    description: "Authorization code with PKCE (S256); clients register at /oauth/register (RFC 7591).",
    flows: { authorizationCode: { authorizationUrl: "/oauth/authorize", tokenUrl: "/oauth/token", refreshUrl: "/oauth/token", scopes: {} } },
  },
  bridgeToken: { type: "http", scheme: "bearer", description: "A bridge token from BRIDGE_TOKENS (`principal:token` pairs)." },
};

const PATH_PARAMETER_TEXT: Record<string, string> = {
  id: "Session id (`ses_` + 26 characters)",
  name: "Server name within the session",
};

/** Every zod schema that `schemas.ts` exports, by its export name. */
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const [name, value] of Object.entries(S)) if (value instanceof z.ZodType && !names.has(value)) names.set(value, name);
  return names;
}

function ref(names: Map<z.ZodType, string>, schema: z.ZodType): JsonObject {
  const name = names.get(schema);
  if (!name) throw new Error("a route names a schema that schemas.ts does not export");
  return { $ref: `${COMPONENT_REF}${name}` };
}

/**
 * Session bodies take each server entry as raw JSON (so its errors can name the server);
 * the document says what that entry is.
 */
const DOCUMENTED_AS = new Map<unknown, string>([[S.SessionBody.shape.servers.unwrap().valueType, "ServerConfig"]]);

/** `z.undefined()` (a key that must be absent, as `type` in a server override) matches nothing; anything else unrepresentable, anything. */
function unrepresentable({ zodSchema }: { zodSchema: { _zod: { def: { type: string } } } }): JsonObject | "any" {
  return zodSchema._zod.def.type === "undefined" ? { not: {} } : "any";
}

function components(names: Map<z.ZodType, string>): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of names) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `${COMPONENT_REF}${id}`,
    // Requests are documented as sent, responses as a client may read them: both the input side.
    io: "input",
    unrepresentable,
    override: ({ zodSchema, jsonSchema }) => {
      const documented = DOCUMENTED_AS.get(zodSchema);
      if (documented) Object.assign(jsonSchema, { $ref: `${COMPONENT_REF}${documented}` });
    },
  });
  const out: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonObject;
    out[id] = rest;
  }
  return out;
}

function queryParameters(query: z.ZodObject | undefined): JsonObject[] {
  if (!query) return [];
  const schema = z.toJSONSchema(query, { io: "input", unrepresentable }) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: (schema.required ?? []).includes(name),
    schema: property,
  }));
}

const json = (schema: JsonObject) => ({ "application/json": { schema } });

function operation(route: RouteEntry, names: Map<z.ZodType, string>): JsonObject {
  const parameters = [
    ...pathParameters(route.path).map((name) => ({
      name,
      in: "path",
      required: true,
      ...(PATH_PARAMETER_TEXT[name] ? { description: PATH_PARAMETER_TEXT[name] } : {}),
      schema: { type: "string" },
    })),
    ...queryParameters(route.query),
  ];
  const responses: JsonObject = {
    [route.response.status]: {
      description: route.response.description,
      ...(route.response.schema ? { content: json(ref(names, route.response.schema)) } : {}),
    },
  };
  const auth = route.auth ?? "token";
  // Every token-protected route can answer 401, and 503 when a deployment has no authentication configured.
  const errors = auth === "token" ? [...new Set([...route.errors, 401, 503])].sort((a, b) => a - b) : route.errors;
  for (const status of errors) {
    responses[status] = { description: STATUS_TEXT[status] ?? "Error", content: json(ref(names, S.ErrorBody)) };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [
      route.served === "session"
        ? "sessions"
        : route.path.startsWith("/v1/bridges")
          ? "bridges"
          : route.served === "provider" || route.path.startsWith("/oauth/")
            ? "auth"
            : "service",
    ],
    security: SECURITY[auth],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: !route.bodyOptional, content: json(ref(names, route.body)) } } : {}),
    responses,
  };
}

export interface OpenApiOptions {
  /** The API's version string (`info.version`). */
  version: string;
}

export function openApiDocument(options: OpenApiOptions): S.OpenApiDocument {
  const names = namedSchemas();
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method] = operation(route, names);
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "mcp-edge",
      version: options.version,
      description:
        "An MCP host at the edge: sessions that keep MCP connections, tool catalogs and protocol chores for agents. " +
        'Every error is {"error":{"code","message","data"?}} with its HTTP status.',
    },
    tags: [
      { name: "sessions", description: "A session, its servers, tools, resources and prompts" },
      { name: "bridges", description: "Local stdio servers through mcp-edge-bridge" },
      { name: "auth", description: "mcp-edge's own OAuth authorization server (sign-in, tokens, client registration, metadata)" },
      { name: "service", description: "Health and this document" },
    ],
    paths,
    components: { schemas: components(names), securitySchemes: SECURITY_SCHEMES },
  };
}
