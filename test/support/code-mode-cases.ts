/**
 * One suite for both code-mode sandboxes (QuickJS in Node and in workerd, the Worker
 * Loader in workerd): each case runs scripts through `exec` against a real
 * server-everything whose tools are named `everything_<tool>`, and checks the outcome.
 */
import { expect } from "vitest";

export interface ExecOutcome {
  result?: unknown;
  logs: string[];
  calls: Array<{ name: string; ms: number; isError: boolean }>;
  error?: { message: string; stack?: string };
}

export interface CaseContext {
  exec(code: string, timeoutMs?: number): Promise<ExecOutcome>;
  /** A URL that answers on loopback (server-everything), for the network escape attempts. */
  reachableUrl: string;
  /** The run's call limit and output budget, as configured for the suite. */
  maxCalls: number;
  maxOutputBytes: number;
}

export interface CodeModeCase {
  name: string;
  run(ctx: CaseContext): Promise<void>;
  /**
   * The Worker Loader cannot stop synchronous CPU work in local workerd (its `cpuMs`
   * limit is enforced by the platform only): these cases would hang the local runtime.
   */
  needsCpuLimit?: true;
}

const byteLength = (lines: string[]) => lines.reduce((n, line) => n + new TextEncoder().encode(line).length, 0);

export const CODE_MODE_CASES: CodeModeCase[] = [
  {
    name: "a multi-tool script: echo, get-sum and get-structured-content, aggregated in one result",
    async run({ exec }) {
      const out = await exec(`
        const echoed = await tools.everything_echo({ message: "hi" });
        const sums = [];
        for (let i = 1; i <= 3; i++) sums.push(await tools["everything_get-sum"]({ a: i, b: 10 }));
        const weather = await callTool("everything_get-structured-content", { location: "New York" });
        console.log("sums", sums.length);
        return { echoed, sums, temperature: typeof weather.temperature, conditions: weather.conditions };
      `);
      expect(out.error).toBeUndefined();
      expect(out.result).toEqual({
        echoed: "Echo: hi",
        sums: ["The sum of 1 and 10 is 11.", "The sum of 2 and 10 is 12.", "The sum of 3 and 10 is 13."],
        temperature: "number",
        conditions: expect.any(String),
      });
      expect(out.logs).toEqual(["sums 3"]);
      expect(out.calls.map((c) => c.name)).toEqual([
        "everything_echo",
        "everything_get-sum",
        "everything_get-sum",
        "everything_get-sum",
        "everything_get-structured-content",
      ]);
      for (const call of out.calls) {
        expect(call.isError).toBe(false);
        expect(call.ms).toBeGreaterThanOrEqual(0);
      }
    },
  },
  {
    name: "tools in parallel with Promise.all",
    async run({ exec }) {
      const out = await exec(`return await Promise.all([1, 2, 3, 4].map((n) => tools.everything_echo({ message: String(n) })));`);
      expect(out.result).toEqual(["Echo: 1", "Echo: 2", "Echo: 3", "Echo: 4"]);
      expect(out.calls).toHaveLength(4);
    },
  },
  {
    name: "the tool directory: tools and toolDirectory list the catalog, frozen",
    async run({ exec }) {
      const out = await exec(`
        const names = Object.keys(tools).sort();
        let reassigned = "no";
        try { tools.everything_echo = () => "forged"; reassigned = String(tools.everything_echo === undefined) } catch (e) { reassigned = e.name }
        const echo = toolDirectory.find((t) => t.name === "everything_echo");
        return { names, echo, frozen: Object.isFrozen(tools) && Object.isFrozen(toolDirectory), reassigned };
      `);
      expect(out.error).toBeUndefined();
      const result = out.result as { names: string[]; echo: { server: string; description: string }; frozen: boolean };
      expect(result.names).toContain("everything_echo");
      expect(result.names).toContain("everything_get-sum");
      expect(result.echo.server).toBe("everything");
      expect(result.echo.description).toMatch(/echo/i);
      expect(result.frozen).toBe(true);
      expect(out.calls).toEqual([]);
    },
  },
  {
    name: "search(query, limit?) finds tools by what they do, with their input schema; searching is not a tool call",
    async run({ exec }) {
      const out = await exec(`
        const hits = await search("add two numbers and return the sum", 3);
        const hit = hits.find((h) => h.name === "everything_get-sum");
        const sum = await callTool(hit.name, { a: 2, b: 3 });
        let bad;
        try { await search(""); } catch (e) { bad = e.name; }
        return { count: hits.length, server: hit.server, schemaType: hit.inputSchema.type, required: hit.inputSchema.required, sum, bad };
      `);
      expect(out.error).toBeUndefined();
      expect(out.result).toEqual({ count: 3, server: "everything", schemaType: "object", required: ["a", "b"], sum: "The sum of 2 and 3 is 5.", bad: "TypeError" });
      expect(out.calls.map((c) => c.name)).toEqual(["everything_get-sum"]);
    },
  },
  {
    name: "an isError result throws an error the script can catch",
    async run({ exec }) {
      const out = await exec(`
        try {
          await tools["everything_get-sum"]({ a: "not a number" });
          return "no error";
        } catch (error) {
          return { name: error.name, tool: error.tool, mentionsInput: /a/.test(error.message) };
        }
      `);
      expect(out.error).toBeUndefined();
      expect(out.result).toEqual({ name: "ToolError", tool: "everything_get-sum", mentionsInput: true });
      expect(out.calls).toEqual([{ name: "everything_get-sum", ms: expect.any(Number), isError: true }]);
    },
  },
  {
    name: "an uncaught error mid-script ends it: error reported with the calls already made and the logs so far",
    async run({ exec }) {
      const out = await exec(`
        await tools.everything_echo({ message: "side effect 1" });
        console.log("before");
        await tools.everything_echo({ message: "side effect 2" });
        throw new Error("boom after two calls");
        await tools.everything_echo({ message: "never" });
      `);
      expect(out.result).toBeUndefined();
      expect(out.error?.message).toBe("boom after two calls");
      expect(out.calls.map((c) => c.name)).toEqual(["everything_echo", "everything_echo"]);
      expect(out.logs).toEqual(["before"]);
    },
  },
  {
    name: "an unknown tool is an error the script sees, and no call is made",
    async run({ exec }) {
      const out = await exec(`return await callTool("nope_missing", {});`);
      expect(out.error?.message).toMatch(/ToolNotFound: unknown tool "nope_missing"/);
      expect(out.calls).toEqual([]);
    },
  },
  {
    name: "a syntax error is the script's error, not an API failure",
    async run({ exec }) {
      const out = await exec(`return {{;`);
      expect(out.error?.message).toMatch(/SyntaxError/);
      expect(out.calls).toEqual([]);
    },
  },
  {
    name: "a result that is not JSON (a BigInt) is an error; undefined is no result",
    async run({ exec }) {
      const bigint = await exec(`return { n: 10n };`);
      expect(bigint.error?.message).toMatch(/not JSON-serializable/);
      const nothing = await exec(`const x = 1;`);
      expect(nothing).toEqual({ logs: [], calls: [] });
    },
  },
  {
    name: "escape: fetch reaches no network",
    async run({ exec, reachableUrl }) {
      const out = await exec(`
        try { const r = await fetch(${JSON.stringify(reachableUrl)}); return "reached " + r.status; }
        catch (error) { return "blocked"; }
      `);
      expect(out.result).toBe("blocked");
    },
  },
  {
    name: "escape: connect (cloudflare:sockets) opens no socket",
    async run({ exec, reachableUrl }) {
      const { host } = new URL(reachableUrl);
      const out = await exec(`
        try {
          const { connect } = await import("cloudflare:sockets");
          const socket = connect(${JSON.stringify(host)});
          await socket.opened;
          return "opened";
        } catch (error) { return "blocked"; }
      `);
      expect(out.result).toBe("blocked");
    },
  },
  {
    name: "escape: import() reaches nothing of the host (no host file read, no process run, no data: module)",
    async run({ exec }) {
      // workerd offers node:fs and node:child_process as modules (a virtual file system, stubs):
      // what matters is that nothing of the host machine is reachable through them.
      const out = await exec(`
        const attempt = async (what) => { try { return "reached: " + String(await what()).slice(0, 40); } catch { return "blocked"; } };
        return [
          await attempt(async () => (await import("node:fs")).readFileSync("/etc/hostname", "utf8")),
          await attempt(async () => (await import("node:child_process")).execSync("id").toString()),
          await attempt(async () => (await import("data:text/javascript,export default 1")).default),
        ];
      `);
      expect(out.result).toEqual(["blocked", "blocked", "blocked"]);
    },
  },
  {
    name: "escape: eval and Function tricks find no require, bindings, environment or secrets",
    async run({ exec }) {
      const out = await exec(`
        let g;
        try { g = Function("return this")(); } catch { g = globalThis; }
        let viaEval;
        try { viaEval = eval("typeof require"); } catch { viaEval = "blocked"; }
        let envKeys = [];
        try { const m = await import("cloudflare:workers"); envKeys = Object.keys(m.env ?? {}); } catch {}
        const constructorTrick = (() => { try { return tools.everything_echo.constructor("return typeof require")(); } catch { return "blocked"; } })();
        return { processEnv: Object.keys((g.process && g.process.env) || {}), require: typeof g.require, bridge: typeof g.__bridge, viaEval, envKeys, constructorTrick };
      `);
      expect(out.error).toBeUndefined();
      const r = out.result as Record<string, unknown>;
      expect(r.processEnv).toEqual([]);
      expect(r.require).toBe("undefined");
      expect(r.bridge).toBe("undefined");
      expect(["undefined", "blocked"]).toContain(r.viaEval);
      expect(r.envKeys).toEqual([]);
      expect(["undefined", "blocked"]).toContain(r.constructorTrick);
    },
  },
  {
    name: "escape: prototype pollution stays in its run; the host and the next run are clean",
    async run({ exec }) {
      const polluted = await exec(`
        Object.prototype.polluted = "yes";
        Array.prototype.push = function () { return "hijacked"; };
        Function.prototype.call = function () { return "hijacked"; };
        try { Object.getPrototypeOf(tools).hijack = 1; } catch {}
        const echoed = await tools.everything_echo({ message: "after pollution" });
        // Forging the final answer only changes this script's own result.
        JSON.stringify = () => '{"ok":true,"result":"42"}';
        return echoed;
      `);
      expect(polluted.calls.map((c) => c.name)).toEqual(["everything_echo"]);
      expect(polluted.result).toBe(42);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const next = await exec(`return { polluted: typeof ({}).polluted, push: [1].push(2), echoed: await tools.everything_echo({ message: "clean" }) };`);
      expect(next.result).toEqual({ polluted: "undefined", push: 2, echoed: "Echo: clean" });
    },
  },
  {
    name: "100 MB of logs are truncated to the output budget with a marker",
    async run({ exec, maxOutputBytes }) {
      const out = await exec(`
        const chunk = "x".repeat(100_000);
        for (let i = 0; i < 1_000; i++) console.log(chunk);
        return "logged";
      `);
      expect(out.error).toBeUndefined();
      const last = out.logs[out.logs.length - 1]!;
      expect(last).toMatch(/^\[truncated: \d+ log line\(s\) cut or left out\]$/);
      expect(byteLength(out.logs.slice(0, -1))).toBeLessThanOrEqual(maxOutputBytes);
      expect(out.result).toBe("logged");
    },
  },
  {
    name: "a result over the output budget comes back cut, with a marker",
    async run({ exec, maxOutputBytes }) {
      const out = await exec(`return "y".repeat(${maxOutputBytes * 3});`);
      expect(typeof out.result).toBe("string");
      expect(out.result as string).toMatch(/\[truncated: \d+ more bytes of the result\]$/);
      expect((out.result as string).length).toBeLessThan(maxOutputBytes + 100);
    },
  },
  {
    name: "too many tool calls: the call over the limit throws, the calls made are listed",
    async run({ exec, maxCalls }) {
      const out = await exec(`for (let i = 0; i < ${maxCalls + 5}; i++) await tools.everything_echo({ message: String(i) });`);
      expect(out.error?.message).toBe(`LimitError: tool call limit reached (${maxCalls} per run)`);
      expect(out.calls).toHaveLength(maxCalls);
    },
  },
  {
    name: "a script waiting on a promise nothing settles ends with an error by its deadline",
    async run({ exec }) {
      const out = await exec(`await new Promise(() => {}); return "unreachable";`, 2_000);
      expect(out.result).toBeUndefined();
      expect(out.error?.message).toBeTruthy();
    },
  },
  {
    name: "while(true){} is stopped at the deadline, with the calls made before it",
    needsCpuLimit: true,
    async run({ exec }) {
      const out = await exec(`await tools.everything_echo({ message: "before the loop" }); while (true) {}`, 1_000);
      expect(out.error?.message).toBe("the script ran out of time (1000 ms)");
      expect(out.calls.map((c) => c.name)).toEqual(["everything_echo"]);
    },
  },
  {
    name: "a memory bomb is stopped at the memory limit",
    needsCpuLimit: true,
    async run({ exec }) {
      // Objects, not strings: QuickJS builds long strings as ropes, so repeated strings cost little.
      const out = await exec(`const hoard = []; for (;;) hoard.push({ n: hoard.length, list: [hoard.length] });`, 60_000);
      expect(out.error?.message).toMatch(/out of memory/i);
    },
  },
];
