/**
 * Search's local errors: a string code, never sent over the wire. A serialized index
 * that cannot be read (`invalidIndex`) is an expected case for a cache reader, which
 * should rebuild; `parseSearchIndex` returns it as a value for that reason.
 */

export const SearchErrorCodes = ["invalidIndex", "invalidConfig", "duplicateId"] as const;
export type SearchErrorCode = (typeof SearchErrorCodes)[number];

const BRAND = Symbol.for("mcp-edge.search-error");

export class SearchError extends Error {
  readonly [BRAND] = true;

  constructor(
    readonly code: SearchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "SearchError";
  }

  /** Brand check, so errors from another bundled copy still count. */
  static is(value: unknown): value is SearchError {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }
}
