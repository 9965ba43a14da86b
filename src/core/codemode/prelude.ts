/**
 * The JavaScript both sandboxes run before a script: it builds the script's globals
 * (`tools`, `callTool`, `search`, `toolDirectory`, `console`) on top of a two-function bridge to
 * the host, runs the script as the body of an async function and answers one JSON
 * string. Sharing this text is what makes the two sandboxes behave the same; the host
 * still treats everything that comes back as untrusted data (the script can rewrite any
 * of this inside its own sandbox, and gains nothing by it).
 *
 * Bridge (inside the sandbox): `call(name, argsJson) → Promise<outcomeJson>` and
 * `log(line)`. Outcome: `{"ok":true,"value"?}` or `{"ok":false,"name","message"}`.
 */

/** Defines `__createScriptGlobals(bridge, directory, maxLogChars)` and `__runScript(fn, globals)`. */
export const PRELUDE = String.raw`
const __createScriptGlobals = (bridge, directory, maxLogChars) => {
  let sentChars = 0;
  let dropped = 0;
  const format = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return value.stack || String(value);
    try {
      const json = JSON.stringify(value);
      return json === undefined ? String(value) : json;
    } catch {
      return String(value);
    }
  };
  const emit = (prefix, args) => {
    const text = prefix + Array.prototype.map.call(args, format).join(" ");
    // Past the budget the host keeps nothing more: count instead of sending.
    if (sentChars > maxLogChars) {
      dropped++;
      return;
    }
    sentChars += text.length;
    bridge.log(text);
  };
  const console = Object.freeze({
    log: (...args) => emit("", args),
    info: (...args) => emit("", args),
    debug: (...args) => emit("", args),
    warn: (...args) => emit("[warn] ", args),
    error: (...args) => emit("[error] ", args),
  });
  const callTool = async (name, args) => {
    if (typeof name !== "string") throw new TypeError("callTool(name, args): name must be a string");
    const argsJson = JSON.stringify(args === undefined ? {} : args);
    const outcome = JSON.parse(await bridge.call(name, argsJson === undefined ? "{}" : argsJson));
    if (outcome.ok) return outcome.value;
    const error = new Error(outcome.message);
    error.name = outcome.name;
    error.tool = name;
    throw error;
  };
  const search = async (query, limit) => {
    const outcome = JSON.parse(await bridge.call("$search", JSON.stringify(limit === undefined ? { query } : { query, limit })));
    if (outcome.ok) return outcome.value;
    const error = new Error(outcome.message);
    error.name = outcome.name;
    throw error;
  };
  const toolDirectory = Object.freeze(directory.map((entry) => Object.freeze({ name: entry.name, server: entry.server, description: entry.description })));
  const tools = Object.create(null);
  for (const entry of toolDirectory) tools[entry.name] = (args) => callTool(entry.name, args);
  return { tools: Object.freeze(tools), callTool, search, toolDirectory, console, dropped: () => dropped };
};

const __runScript = async (fn, globals) => {
  const describe = (error) => {
    if (error instanceof Error) {
      const message = error.name && error.name !== "Error" ? error.name + ": " + error.message : String(error.message);
      return typeof error.stack === "string" && error.stack ? { message, stack: error.stack } : { message };
    }
    let text;
    try { text = typeof error === "string" ? error : JSON.stringify(error); } catch { text = undefined; }
    return { message: "thrown: " + (text === undefined ? String(error) : text) };
  };
  try {
    const value = await fn(globals.tools, globals.callTool, globals.search, globals.toolDirectory, globals.console);
    let result;
    try {
      result = value === undefined ? undefined : JSON.stringify(value);
    } catch (error) {
      return JSON.stringify({ ok: false, error: { message: "the script's result is not JSON-serializable: " + describe(error).message }, dropped: globals.dropped() });
    }
    return JSON.stringify({ ok: true, result, dropped: globals.dropped() });
  } catch (error) {
    return JSON.stringify({ ok: false, error: describe(error), dropped: globals.dropped() });
  }
};
`;

/** The script as the body of an async function that receives the globals as parameters too. */
export function wrapScript(code: string): string {
  return `async function (tools, callTool, search, toolDirectory, console) {\n${code}\n}`;
}
