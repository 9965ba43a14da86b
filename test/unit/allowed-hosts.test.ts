import { describe, expect, it } from "vitest";
import { hostAllowed, parseAllowedHosts } from "../../src/core/allowed-hosts.js";

describe("MCP_ALLOWED_HOSTS (DNS-rebinding protection)", () => {
  const allowed = parseAllowedHosts(" 127.0.0.1, LOCALHOST ,mcp.example.com:8443,[::1]");

  it("parses a comma-separated, case-insensitive list", () => {
    expect(allowed).toEqual(["127.0.0.1", "localhost", "mcp.example.com:8443", "[::1]"]);
    expect(parseAllowedHosts(undefined)).toEqual([]);
    expect(parseAllowedHosts(" , ")).toEqual([]);
  });

  it("checks Host, and Origin when present; entries without a port match any port", () => {
    expect(hostAllowed({ host: "127.0.0.1:8787", origin: null }, allowed)).toBe(true);
    expect(hostAllowed({ host: "localhost:3000", origin: "http://localhost:3000" }, allowed)).toBe(true);
    expect(hostAllowed({ host: "[::1]:8787", origin: null }, allowed)).toBe(true);
    expect(hostAllowed({ host: "mcp.example.com:8443", origin: null }, allowed)).toBe(true);
    expect(hostAllowed({ host: "mcp.example.com", origin: null }, allowed)).toBe(false);
  });

  it("refuses a rebinding attempt: foreign Host or Origin, a missing Host, a malformed Origin", () => {
    expect(hostAllowed({ host: "evil.example.com", origin: "http://evil.example.com" }, allowed)).toBe(false);
    expect(hostAllowed({ host: "127.0.0.1:8787", origin: "http://evil.example.com" }, allowed)).toBe(false);
    expect(hostAllowed({ host: null, origin: null }, allowed)).toBe(false);
    expect(hostAllowed({ host: "localhost", origin: "not a url" }, allowed)).toBe(false);
  });

  it("allows everything without a list", () => {
    expect(hostAllowed({ host: "anything", origin: "http://else" }, [])).toBe(true);
  });
});
