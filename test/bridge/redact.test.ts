import { describe, expect, it } from "vitest";
import { isSecretName, REDACTED, redactArgs, redactCommandLine, redactEnv, redactText } from "../../bridge/src/redact.js";

const HEX = "0123456789abcdef0123456789abcdef";
const GH = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

describe("redactArgs", () => {
  it("hides the value after a secret flag, and after =", () => {
    expect(redactArgs(["--token", "abc", "--api-key=xyz", "--password", "hunter2", "--port", "80"])).toEqual([
      "--token",
      REDACTED,
      `--api-key=${REDACTED}`,
      "--password",
      REDACTED,
      "--port",
      "80",
    ]);
  });

  it("recognises single-dash, camelCase and snake_case secret flags", () => {
    expect(redactArgs(["-token", "a", "--apiKey", "b", "--client_secret=c", "--auth-token", "d"])).toEqual([
      "-token",
      REDACTED,
      "--apiKey",
      REDACTED,
      `--client_secret=${REDACTED}`,
      "--auth-token",
      REDACTED,
    ]);
  });

  it("leaves switches, locators and harmless flags alone", () => {
    const args = ["--no-auth", "/srv/data", "--token-file", "/run/secrets/t", "--keyboard", "us", "--monkey", "x"];
    expect(redactArgs(args)).toEqual(args);
  });

  it("does not swallow the next flag when a secret flag is a bare switch", () => {
    expect(redactArgs(["--auth", "--verbose"])).toEqual(["--auth", "--verbose"]);
  });

  it("hides values of KEY=VALUE arguments whose key is denied", () => {
    expect(redactArgs(["-e", "GITHUB_TOKEN=abc", "DB_PASSWORD=p", "MODE=fast"])).toEqual([
      "-e",
      `GITHUB_TOKEN=${REDACTED}`,
      `DB_PASSWORD=${REDACTED}`,
      "MODE=fast",
    ]);
  });

  it("hides Authorization and secret-named header values", () => {
    expect(redactArgs(["-H", "Authorization: Bearer abc.def", "-H", "X-Api-Key: k1", "-H", "Accept: text/plain"])).toEqual([
      "-H",
      `Authorization: Bearer ${REDACTED}`,
      "-H",
      `X-Api-Key: ${REDACTED}`,
      "-H",
      "Accept: text/plain",
    ]);
  });

  it("hides long hex and mixed-case tokens, keeps paths, package names and words", () => {
    expect(redactArgs([HEX, GH, "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"])).toEqual([REDACTED, REDACTED, REDACTED]);
    const harmless = [
      "@modelcontextprotocol/server-filesystem",
      "/home/dev/projects/mcp-edge-bridge-2024/src",
      "a-very-long-lowercase-argument-name-1234",
      "0123456789abcdef", // hex but short
    ];
    expect(redactArgs(harmless)).toEqual(harmless);
  });

  it("strips credentials, query and fragment from URLs", () => {
    expect(redactArgs(["https://user:pw@example.com/mcp?token=abc#x", "postgres://admin:s3cret@db.internal:5432/app"])).toEqual([
      "https://example.com/mcp",
      "postgres://db.internal:5432/app",
    ]);
  });
});

describe("redactCommandLine", () => {
  it("joins a redacted, log-ready line and quotes arguments with spaces", () => {
    expect(redactCommandLine("npx", ["-y", "server", "--token", "abc", "hello world"])).toBe(`npx -y server --token ${REDACTED} 'hello world'`);
  });

  it("never contains any of the secrets it was given", () => {
    const secrets = ["abc123SECRET", "hunter2", HEX, GH, "pw", "tok"];
    const line = redactCommandLine("/usr/bin/server", [
      "--secret",
      secrets[0]!,
      `--password=${secrets[1]}`,
      secrets[2]!,
      `Authorization: Bearer ${secrets[3]}`,
      `https://u:${secrets[4]}@h/p?k=${secrets[5]}`,
    ]);
    for (const secret of secrets) expect(line).not.toContain(secret);
  });
});

describe("redactText and redactEnv", () => {
  it("redacts inside free text", () => {
    expect(redactText(`failed: token=${HEX} at https://h/p?q=1`)).toBe(`failed: token=${REDACTED} at https://h/p`);
  });

  it("respects a custom deny list for KEY=VALUE", () => {
    expect(redactText("MY_VAR=1", { denyPatterns: ["MY_*"] })).toBe(`MY_VAR=${REDACTED}`);
    expect(redactText("MY_VAR=1")).toBe("MY_VAR=1");
  });

  it("hides env values by name", () => {
    expect(redactEnv({ GITHUB_TOKEN: "x", PATH: "/bin", apiKey: "y" })).toEqual({ GITHUB_TOKEN: REDACTED, PATH: "/bin", apiKey: REDACTED });
  });

  it("names secrets by their words", () => {
    expect(isSecretName("X-Auth-Token")).toBe(true);
    expect(isSecretName("clientSecret")).toBe(true);
    expect(isSecretName("tokenizer")).toBe(false);
    expect(isSecretName("key-file")).toBe(false);
  });
});
