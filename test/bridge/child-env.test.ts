/**
 * What a stdio server inherits: the bridge's env minus its token and secret-looking names
 * (unless the server's config sets them), plus the configured env. The last test reads the
 * environment back from a real child process.
 */
import { describe, expect, it } from "vitest";
import { BRIDGE_TOKEN_VAR, buildChildEnv } from "../../bridge/src/child-env.js";
import { compileDenyList, DEFAULT_DENY_PATTERNS } from "../../bridge/src/deny-list.js";
import { fixture, NODE, nextNotification, useChildren } from "./helpers.js";

const parentEnv = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/dev",
  FOO_TOKEN: "t",
  X_SECRET: "s",
  MY_KEY: "k",
  DB_PASSWORD_X: "p",
  db_password: "lower",
  [BRIDGE_TOKEN_VAR]: "bridge",
  KEYBOARD: "us",
  TOKEN_COUNT: "3",
  UNSET: undefined,
};

describe("compileDenyList", () => {
  const denied = compileDenyList(DEFAULT_DENY_PATTERNS);

  it("matches the default patterns case-insensitively, on the whole name", () => {
    for (const name of ["FOO_TOKEN", "x_secret", "My_Key", "DB_PASSWORD_X", "password", "GITHUB_PERSONAL_ACCESS_TOKEN"]) {
      expect(denied(name), name).toBe(true);
    }
    for (const name of ["PATH", "KEYBOARD", "TOKEN_COUNT", "SECRETARY", "MONKEY", "_TOKENS"]) {
      expect(denied(name), name).toBe(false);
    }
  });

  it("treats regex characters in a pattern literally and supports ?", () => {
    const custom = compileDenyList(["A.B", "AWS_?"]);
    expect(custom("A.B")).toBe(true);
    expect(custom("AXB")).toBe(false);
    expect(custom("AWS_1")).toBe(true);
    expect(custom("AWS_12")).toBe(false);
  });

  it("denies nothing for an empty list", () => {
    expect(compileDenyList([])("FOO_TOKEN")).toBe(false);
  });
});

describe("buildChildEnv", () => {
  it("drops the bridge token and secret-looking names, keeps the rest", () => {
    const env = buildChildEnv({ parentEnv });
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/dev", KEYBOARD: "us", TOKEN_COUNT: "3" });
  });

  it("keeps a denied name the server's config sets, with the configured value", () => {
    const env = buildChildEnv({ parentEnv, serverEnv: { MY_KEY: "configured", EXTRA: "1" } });
    expect(env.MY_KEY).toBe("configured");
    expect(env.EXTRA).toBe("1");
    expect(env.FOO_TOKEN).toBeUndefined();
  });

  it("lets configured env override inherited values", () => {
    expect(buildChildEnv({ parentEnv, serverEnv: { PATH: "/opt/bin" } }).PATH).toBe("/opt/bin");
  });

  it("uses a custom deny list instead of the defaults", () => {
    const env = buildChildEnv({ parentEnv, denyPatterns: ["HOME"] });
    expect(env.HOME).toBeUndefined();
    expect(env.FOO_TOKEN).toBe("t");
    expect(env[BRIDGE_TOKEN_VAR]).toBeUndefined(); // the token goes whatever the list says
  });

  it("does not modify its inputs", () => {
    const serverEnv = { A: "1" };
    const before = JSON.stringify(parentEnv);
    buildChildEnv({ parentEnv, serverEnv });
    expect(JSON.stringify(parentEnv)).toBe(before);
    expect(serverEnv).toEqual({ A: "1" });
  });
});

describe("a real child's environment", () => {
  const children = useChildren();

  it("has secrets stripped, the configured key and PATH kept", async () => {
    const env = buildChildEnv({
      parentEnv: { ...process.env, FOO_TOKEN: "t", X_SECRET: "s", MY_KEY: "inherited", DB_PASSWORD_X: "p", [BRIDGE_TOKEN_VAR]: "bridge" },
      serverEnv: { MY_KEY: "configured" },
    });
    const transport = children.transport({ command: NODE, args: [fixture("print-env.mjs")], env });
    const reported = nextNotification(transport, "fixture/env");
    await transport.start();
    const childEnv = (await reported).params?.env as Record<string, string>;

    for (const name of ["FOO_TOKEN", "X_SECRET", "DB_PASSWORD_X", BRIDGE_TOKEN_VAR]) expect(childEnv[name], name).toBeUndefined();
    expect(childEnv.MY_KEY).toBe("configured");
    expect(childEnv.PATH).toBe(process.env.PATH);

    await transport.close();
    expect(transport.exit).toMatchObject({ code: 0, hostShutdown: true });
  });
});
