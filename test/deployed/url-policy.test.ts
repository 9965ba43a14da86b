import { describe, expect, it } from "vitest";
import { deployedApi as api } from "./helpers.js";

describe("a deployed Worker refuses private addresses (SSRF)", () => {
  it.each([
    "http://127.0.0.1:8080/mcp",
    "http://localhost/mcp",
    "http://10.1.2.3/mcp",
    "http://192.168.0.10/mcp",
    "http://169.254.169.254/latest/meta-data",
    "http://metadata.google.internal/computeMetadata/v1",
    "http://[::1]/mcp",
    "http://2130706433/mcp",
    // IP literals and local names in disguise
    "http://127.1/mcp",
    "http://0x7f.1/mcp",
    "http://0177.0.0.1/mcp",
    "http://[::ffff:127.0.0.1]/mcp",
    "http://[::ffff:7f00:1]/mcp",
    "http://127.0.0.1../mcp",
    "http://localhost./mcp",
    "http://app.localhost/mcp",
    "http://100.64.0.1/mcp",
    "http://[fe80::1]/mcp",
    "http://[fc00::1]/mcp",
    "http://[fd00:ec2::254]/latest/meta-data",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data",
    "http://[2002:7f00:1::]/mcp",
  ])("%s is a 400 that says why", async (url) => {
    const res = await api("POST", "/v1/sessions", { servers: { s: { type: "remote", url } } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalidConfig");
    expect(res.body.error.message).toMatch(/loopback|private|metadata|local/);
  });

  it("PUT applies the same rule", async () => {
    const created = await api("POST", "/v1/sessions", {});
    expect(created.status).toBe(201);
    const res = await api("PUT", `/v1/sessions/${created.body.id}/servers/s`, { type: "remote", url: "http://127.0.0.1/mcp" });
    expect(res.status).toBe(400);
  });
});
