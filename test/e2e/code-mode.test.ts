/**
 * Code mode end to end: the built Worker on workerd (once with a Worker Loader, once with
 * CODE_SANDBOX=quickjs), the bridge CLI as its own process, and real stdio servers behind
 * it (server-filesystem on a temporary directory, server-everything): one script per
 * sandbox that writes, lists, reads and searches files and mixes in another server's tool.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpEdgeClient } from "../../src/client/index.js";
import { eventually } from "../support/eventually.js";
import { buildWorker, startGateway, type Gateway } from "./gateway.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const NODE = process.execPath;
const TOKEN = "e2e-code-mode-token";
const SANDBOXES = ["loader", "quickjs"] as const;

let work: string;
const gateways = new Map<string, { gateway: Gateway; client: McpEdgeClient; session: string }>();
const bridges = new Set<ChildProcess>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcp-edge-e2e-code-mode-"));
  for (let i = 1; i <= 12; i++) writeFileSync(join(work, `note-${i}.txt`), `${"line\n".repeat(i)}`);
  const config = join(work, "..", `${work.split("/").pop()}-bridge.json`);
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        filesystem: { command: NODE, args: [`${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`], cwd: work },
        everything: { command: NODE, args: [`${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, "stdio"] },
      },
    }),
  );
  const script = await buildWorker("dist-e2e-code-mode");
  for (const sandbox of SANDBOXES) {
    const gateway = await startGateway(script, { BRIDGE_TOKENS: `local:${TOKEN}`, CODE_SANDBOX: sandbox }, { workerLoader: sandbox === "loader" });
    const child = spawn(NODE, [`${root}bridge/bin/mcp-edge-bridge.mjs`, "--gateway", gateway.url, "--config", config, "--id", "dev"], {
      env: { ...process.env, MCP_EDGE_BRIDGE_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.resume();
    child.stderr?.resume();
    bridges.add(child);
    const client = new McpEdgeClient({ baseUrl: gateway.url });
    await eventually(
      () => client.listBridges(),
      (list) => list.bridges.some((b) => b.id === "dev"),
      20_000,
    );
    const session = await client.createSession({
      servers: { fs: { type: "local", bridge: "dev", server: "filesystem" }, everything: { type: "local", bridge: "dev", server: "everything" } },
    });
    expect(session.servers.fs?.status).toBe("connected");
    expect(session.servers.everything?.status).toBe("connected");
    gateways.set(sandbox, { gateway, client, session: session.id });
  }
});

afterAll(async () => {
  await Promise.all(
    [...bridges].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    ),
  );
  await Promise.all([...gateways.values()].map(({ gateway }) => gateway.stop()));
  rmSync(work, { recursive: true, force: true });
  rmSync(join(work, "..", `${work.split("/").pop()}-bridge.json`), { force: true });
});

describe.each(SANDBOXES)("code mode on the %s sandbox, through the bridge", (sandbox) => {
  it("a script lists, reads, counts, writes and searches files, and sums with another server's tool", async () => {
    const { client, session } = gateways.get(sandbox)!;
    const dir = JSON.stringify(work);
    const out = await client.exec(session, {
      code: `
        const text = (v) => (typeof v === "string" ? v : v.content);
        const listing = text(await tools.fs_list_directory({ path: ${dir} }));
        const names = listing.split("\\n").filter((l) => l.startsWith("[FILE] ")).map((l) => l.slice(7)).filter((n) => n.startsWith("note-"));
        const counts = await Promise.all(names.map(async (name) => ({ name, lines: text(await tools.fs_read_text_file({ path: ${dir} + "/" + name })).split("\\n").filter(Boolean).length })));
        counts.sort((a, b) => b.lines - a.lines);
        const top = counts.slice(0, 3);
        await tools.fs_write_file({ path: ${dir} + "/summary-${sandbox}.txt", content: top.map((c) => c.name + " " + c.lines).join("\\n") });
        const found = text(await tools.fs_search_files({ path: ${dir}, pattern: "summary-${sandbox}.*" }));
        const total = await tools["everything_get-sum"]({ a: top[0].lines, b: top[1].lines });
        console.log("files", names.length);
        return { top, found: found.includes("summary-${sandbox}.txt"), total };
      `,
    });
    expect(out.error).toBeUndefined();
    expect(out.result).toEqual({
      top: [
        { name: "note-12.txt", lines: 12 },
        { name: "note-11.txt", lines: 11 },
        { name: "note-10.txt", lines: 10 },
      ],
      found: true,
      total: "The sum of 12 and 11 is 23.",
    });
    expect(out.logs).toEqual(["files 12"]);
    expect(out.calls.filter((c) => c.name === "fs_read_text_file")).toHaveLength(12);
    expect(out.calls.map((c) => c.name)).toEqual(expect.arrayContaining(["fs_list_directory", "fs_write_file", "fs_search_files", "everything_get-sum"]));
    // The write really happened on the developer's disk.
    expect(readFileSync(join(work, `summary-${sandbox}.txt`), "utf8")).toBe("note-12.txt 12\nnote-11.txt 11\nnote-10.txt 10");
  });

  it("a failing file operation is catchable; an uncaught one reports the writes already made", async () => {
    const { client, session } = gateways.get(sandbox)!;
    const dir = JSON.stringify(work);
    const out = await client.exec(session, {
      code: `
        let caught;
        try { await tools.fs_read_text_file({ path: "/etc/passwd" }); } catch (e) { caught = e.name; }
        console.log("caught", caught);
        await tools.fs_write_file({ path: ${dir} + "/partial-${sandbox}.txt", content: "written before the failure" });
        await tools.fs_read_text_file({ path: ${dir} + "/does-not-exist.txt" });
        return "unreachable";
      `,
    });
    expect(out.logs).toEqual(["caught ToolError"]);
    expect(out.error?.message).toMatch(/^ToolError: /);
    expect(out.calls.map((c) => [c.name, c.isError])).toEqual([
      ["fs_read_text_file", true],
      ["fs_write_file", false],
      ["fs_read_text_file", true],
    ]);
    expect(readFileSync(join(work, `partial-${sandbox}.txt`), "utf8")).toBe("written before the failure");
  });
});
