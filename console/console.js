// @ts-check
/**
 * The mcp-edge web console: a reference front-end on the public JSON API (`/v1/...`) and
 * the session event stream, in plain DOM code with no dependencies. Everything a server
 * or a tool sends is shown as text (never parsed as HTML); server configurations are never
 * fetched, so no header or key can reach the page. Session ids are remembered in
 * localStorage, nothing else.
 */

const STORAGE_KEY = "mcp-edge-console:sessions";
const MAX_LOG_ITEMS = 500;
const EVENT_TYPES = [
  "server.status", "tools.changed", "tool.started", "tool.progress", "tool.finished", "turn.ended", "log", "gap",
  "approval.requested", "approval.resolved", "sampling.progress",
];
const EXAMPLE_BODY = {
  servers: { everything: { type: "remote", url: "http://127.0.0.1:3201/mcp" } },
};

/** @typedef {{status: string, error?: string, tools?: number}} ServerStatus */
/** @typedef {{name: string, server: string, tool: string, description: string, inputSchema: Record<string, any>}} Tool */
/** @typedef {{id: string, kind: string, server: string, createdAt: string, metadata: Record<string, any>}} Approval */

// ── Small helpers ────────────────────────────────────────────────────────────

/** @param {string} id */
function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`missing #${id}`);
  return node;
}

/**
 * Creates an element. Strings in `props` become attributes, booleans properties, functions
 * under `on…` listeners; children are nodes or text (never HTML).
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {Array<Node | string | null | undefined | false>} children
 * @returns {HTMLElement}
 */
function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (typeof value === "boolean") /** @type {any} */ (node)[key] = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** @param {string} text */
function say(text) {
  byId("problem").textContent = "";
  byId("notice").textContent = text;
}

/** @param {unknown} error */
function complain(error) {
  byId("notice").textContent = "";
  byId("problem").textContent = error instanceof ApiError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}

class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message @param {unknown} [data] */
  constructor(status, code, message, data) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
  }
}

/**
 * One API call; a non-2xx answer throws ApiError with the body's `{error:{code,message}}`.
 * @param {string} method @param {string} path @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  /** @type {any} */
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = json?.error;
    throw new ApiError(response.status, error?.code ?? "httpError", error?.message ?? `HTTP ${response.status}`, error?.data);
  }
  return json;
}

/** A 404 from the router (the route does not exist here), as opposed to an unknown session, server or tool. */
/** @param {unknown} error */
function isMissingRoute(error) {
  return error instanceof ApiError && error.status === 404 && error.code === "notFound";
}

/** @param {string} id */
const sessionPath = (id) => `/v1/sessions/${encodeURIComponent(id)}`;

// ── Remembered sessions (ids only) ───────────────────────────────────────────

/** @returns {Array<{id: string, servers: string[]}>} */
function remembered() {
  try {
    const list = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]");
    return Array.isArray(list) ? list.filter((s) => typeof s?.id === "string") : [];
  } catch {
    return [];
  }
}

/** @param {Array<{id: string, servers: string[]}>} list */
function saveRemembered(list) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(list.slice(0, 20)));
  } catch {
    // Storage may be off (private mode); the console works without it.
  }
  renderRemembered();
}

/** @param {string} id @param {string[]} servers */
function remember(id, servers) {
  saveRemembered([{ id, servers }, ...remembered().filter((s) => s.id !== id)]);
}

/** @param {string} id */
function forget(id) {
  saveRemembered(remembered().filter((s) => s.id !== id));
}

function renderRemembered() {
  const list = byId("known-sessions");
  const items = remembered().map((s) =>
    h("li", {}, h("button", { type: "button", class: "link", onclick: () => openSession(s.id) }, h("code", {}, s.id)), " ", s.servers.join(", "),
      " ", h("button", { type: "button", class: "small", "aria-label": `Forget ${s.id}`, onclick: () => forget(s.id) }, "Forget")),
  );
  list.replaceChildren(...(items.length ? items : [h("li", {}, "None yet.")]));
}

// ── The open session ─────────────────────────────────────────────────────────

/** @type {{id: string, servers: Record<string, ServerStatus>, tools: Map<string, Tool>, stream?: EventSource, approvals: Map<string, Approval>, approvalsSupported: boolean} | undefined} */
let current;

/** @param {string} id @param {{servers: Record<string, ServerStatus>}} [info] */
async function openSession(id, info) {
  current?.stream?.close();
  current = undefined;
  try {
    const session = info ?? (await api("GET", sessionPath(id)));
    current = { id, servers: session.servers, tools: new Map(), approvals: new Map(), approvalsSupported: true };
    remember(id, Object.keys(session.servers));
    history.replaceState(null, "", `#${id}`);
    byId("session-id").textContent = id;
    byId("session-view").hidden = false;
    byId("tool-view").hidden = true;
    byId("events").replaceChildren();
    renderServers();
    openEvents(id);
    await Promise.all([loadTools(), loadApprovals()]);
    say(`Session ${id} open.`);
  } catch (error) {
    if (error instanceof ApiError && error.code === "sessionNotFound") forget(id);
    byId("session-view").hidden = true;
    complain(error);
  }
}

async function refreshSession() {
  if (!current) return;
  const id = current.id;
  const session = await api("GET", sessionPath(id));
  if (current?.id !== id) return;
  current.servers = session.servers;
  renderServers();
}

async function deleteSession() {
  if (!current) return;
  const id = current.id;
  try {
    await api("DELETE", sessionPath(id));
    current.stream?.close();
    current = undefined;
    forget(id);
    history.replaceState(null, "", location.pathname);
    byId("session-view").hidden = true;
    say(`Session ${id} deleted.`);
  } catch (error) {
    complain(error);
  }
}

// ── Servers ──────────────────────────────────────────────────────────────────

function renderServers() {
  if (!current) return;
  const rows = Object.entries(current.servers).map(([name, s]) => {
    const actions = [];
    if (s.status !== "connected") actions.push(h("button", { type: "button", class: "small", onclick: () => serverAction(name, "connect") }, "Connect"));
    if (s.status !== "disabled") actions.push(h("button", { type: "button", class: "small", onclick: () => serverAction(name, "disconnect") }, "Disconnect"));
    if (s.status === "needs_auth") actions.push(h("button", { type: "button", class: "small primary", onclick: () => signIn(name) }, "Sign in"));
    return h("tr", { "data-server": name },
      h("th", { scope: "row" }, name),
      h("td", {}, h("span", { class: `status status-${s.status}` }, s.status.replace(/_/g, " "))),
      h("td", {}, s.tools === undefined ? "" : String(s.tools)),
      h("td", { class: "error-text" }, s.error ?? ""),
      h("td", {}, ...actions));
  });
  byId("servers").replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", { colspan: "5" }, "No servers."))]));
}

/** @param {string} name @param {"connect" | "disconnect"} action */
async function serverAction(name, action) {
  if (!current) return;
  const id = current.id;
  try {
    say(`${action === "connect" ? "Connecting" : "Disconnecting"} ${name}…`);
    const status = await api("POST", `${sessionPath(id)}/servers/${encodeURIComponent(name)}/${action}`);
    if (current?.id !== id) return;
    current.servers[name] = status;
    renderServers();
    say(`${name}: ${status.status}${status.error ? ` (${status.error})` : ""}`);
    await loadTools();
  } catch (error) {
    complain(error);
  }
}

/** Asks the gateway for the server's authorization URL and opens it in a new tab. */
/** @param {string} name */
async function signIn(name) {
  if (!current) return;
  try {
    const { authorizationUrl } = await api("POST", `${sessionPath(current.id)}/servers/${encodeURIComponent(name)}/auth`);
    const url = new URL(authorizationUrl);
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("the gateway answered an authorization URL that is not http(s)");
    window.open(url.href, "_blank", "noopener,noreferrer");
    say(`Sign in to ${name} in the new tab; its status changes here when you are done.`);
  } catch (error) {
    if (isMissingRoute(error)) complain(new Error(`Sign-in is not available on this gateway yet (POST …/servers/${name}/auth answered 404).`));
    else complain(error);
  }
}

// ── Tools ────────────────────────────────────────────────────────────────────

async function loadTools() {
  if (!current) return;
  const id = current.id;
  const { tools } = await api("GET", `${sessionPath(id)}/tools`);
  if (current?.id !== id) return;
  current.tools = new Map(tools.map((/** @type {Tool} */ t) => [t.name, t]));
  const query = /** @type {HTMLInputElement} */ (byId("tool-query")).value.trim();
  if (query) await searchTools(query);
  else renderToolList(tools);
}

/** @param {string} query */
async function searchTools(query) {
  if (!current) return;
  const { results } = await api("POST", `${sessionPath(current.id)}/tools/search`, { query, limit: 20 });
  renderToolList(results.map((/** @type {{name: string, server: string, description: string}} */ r) => current?.tools.get(r.name) ?? { ...r, tool: r.name, inputSchema: {} }));
}

/** @param {Tool[]} tools */
function renderToolList(tools) {
  const items = tools.map((t) =>
    h("li", {}, h("button", { type: "button", class: "tool", onclick: () => showTool(t.name) },
      h("span", { class: "tool-name" }, t.name), h("span", { class: "tool-description" }, firstLine(t.description)))));
  byId("tool-list").replaceChildren(...(items.length ? items : [h("li", {}, "No tools.")]));
}

/** @param {string} text */
function firstLine(text) {
  const line = (text ?? "").split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** @param {string} name */
function showTool(name) {
  const tool = current?.tools.get(name);
  if (!tool) return complain(new Error(`${name} is not in the catalog any more`));
  byId("tool-name").textContent = tool.name;
  byId("tool-description").textContent = tool.description;
  byId("tool-schema").textContent = JSON.stringify(tool.inputSchema, null, 2);
  byId("call-fields").replaceChildren(...schemaFields(tool.inputSchema, "arg"));
  byId("call-form").dataset.tool = tool.name;
  byId("result").replaceChildren();
  byId("tool-view").hidden = false;
  byId("tool-heading").scrollIntoView({ block: "nearest" });
  /** @type {HTMLElement | null} */ (byId("call-fields").querySelector("input, select, textarea"))?.focus();
}

// ── Forms from JSON Schema (tool arguments, elicitation requests) ───────────

/**
 * Inputs for an object schema: string, number/integer, boolean and enum properties get
 * their own control; anything else (objects, arrays, unions) a JSON text area. A schema
 * without properties gets one JSON text area for the whole object.
 * @param {Record<string, any>} schema @param {string} prefix
 * @returns {HTMLElement[]}
 */
function schemaFields(schema, prefix) {
  const properties = schema?.properties;
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  if (!properties || typeof properties !== "object") {
    const open = schema?.additionalProperties !== false && schema?.additionalProperties !== undefined;
    if (!open) return [h("p", { class: "hint" }, "No arguments.")];
    return [field(prefix, "(all arguments)", { type: "object" }, false, true)];
  }
  const names = Object.keys(properties);
  if (names.length === 0) return [h("p", { class: "hint" }, "No arguments.")];
  return names.map((name) => field(prefix, name, properties[name] ?? {}, required.has(name), false));
}

/**
 * @param {string} prefix @param {string} name @param {Record<string, any>} p @param {boolean} required
 * @param {boolean} whole the one text area for a schema without properties
 */
function field(prefix, name, p, required, whole) {
  const id = `${prefix}-${name.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
  const hintId = `${id}-hint`;
  const hint = p.description ? h("span", { class: "hint", id: hintId }, String(p.description)) : null;
  const describedBy = hint ? hintId : undefined;
  const type = Array.isArray(p.type) ? p.type.find((/** @type {string} */ t) => t !== "null") : p.type;
  const label = (/** @type {string} */ text) => h("label", { for: id }, text, required ? h("span", { class: "required" }, " (required)") : null);
  const data = { "data-name": whole ? "" : name, "data-kind": "json", "aria-describedby": describedBy, required };

  if (Array.isArray(p.enum) && p.enum.every((/** @type {unknown} */ v) => ["string", "number", "boolean"].includes(typeof v))) {
    const options = p.enum.map((/** @type {unknown} */ v) => h("option", { value: JSON.stringify(v), selected: v === p.default }, String(v)));
    return h("div", { class: "field" }, label(name),
      h("select", { ...data, id, "data-kind": "enum" }, required ? null : h("option", { value: "" }, "(none)"), ...options), hint);
  }
  if (type === "boolean") {
    return h("div", { class: "field check" },
      h("input", { ...data, id, type: "checkbox", "data-kind": "boolean", "data-required": required ? "true" : undefined, checked: p.default === true, required: false }), label(name), hint);
  }
  if (type === "number" || type === "integer") {
    return h("div", { class: "field" }, label(name),
      h("input", { ...data, id, type: "number", "data-kind": "number", step: type === "integer" ? "1" : "any", min: p.minimum, max: p.maximum, value: p.default }), hint);
  }
  if (type === "string") {
    return h("div", { class: "field" }, label(name),
      h("input", { ...data, id, type: "text", "data-kind": "string", value: p.default, minlength: p.minLength, maxlength: p.maxLength }), hint);
  }
  const example = p.default !== undefined ? JSON.stringify(p.default, null, 2) : undefined;
  return h("div", { class: "field" }, label(`${name} (JSON)`),
    h("textarea", { ...data, id, rows: "4", spellcheck: false }, example ?? ""), hint);
}

/**
 * Reads the values of a form built by schemaFields; throws naming the field whose JSON is bad.
 * @param {HTMLElement} container
 * @returns {Record<string, unknown>}
 */
function readFields(container) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const input of container.querySelectorAll("[data-kind]")) {
    const control = /** @type {HTMLInputElement} */ (input);
    const name = control.dataset.name ?? "";
    const kind = control.dataset.kind;
    const value = control.value;
    if (kind === "boolean") {
      if (control.checked || control.dataset.required === "true") out[name] = control.checked;
      continue;
    }
    if (value.trim() === "") continue;
    if (kind === "number") out[name] = Number(value);
    else if (kind === "string") out[name] = value;
    else {
      let parsed;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw new Error(`${name || "arguments"}: not valid JSON`);
      }
      if (name) out[name] = parsed;
      else if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) Object.assign(out, parsed);
      else throw new Error("arguments must be a JSON object");
    }
  }
  return out;
}

/** @param {SubmitEvent} event */
async function callTool(event) {
  event.preventDefault();
  if (!current) return;
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const name = form.dataset.tool ?? "";
  const button = /** @type {HTMLButtonElement} */ (byId("call-button"));
  const result = byId("result");
  try {
    const args = readFields(byId("call-fields"));
    button.disabled = true;
    result.replaceChildren(h("p", { class: "hint" }, `Calling ${name}…`));
    const answer = await api("POST", `${sessionPath(current.id)}/tools/call`, { name, arguments: args });
    if (form.dataset.tool === name) renderResult(answer);
  } catch (error) {
    result.replaceChildren();
    complain(error);
  } finally {
    button.disabled = false;
  }
}

/** @param {{output: string, attachments: Array<{mime: string, url: string}>, metadata: Record<string, unknown>, isError: boolean}} answer */
function renderResult(answer) {
  const parts = [
    h("p", { class: answer.isError ? "badge bad" : "badge good" }, answer.isError ? "Tool error" : "Success"),
    h("pre", { class: "output" }, answer.output || "(no text)"),
  ];
  answer.attachments.forEach((a, i) => {
    const label = `Attachment ${i + 1} (${a.mime})`;
    if (!a.url.startsWith("data:")) parts.push(h("p", {}, label, ": ", a.url));
    else if (a.mime.startsWith("image/")) parts.push(h("figure", {}, h("img", { src: a.url, alt: label }), h("figcaption", {}, label)));
    else if (a.mime.startsWith("audio/")) parts.push(h("figure", {}, h("audio", { src: a.url, controls: true }), h("figcaption", {}, label)));
    else parts.push(h("p", {}, h("a", { href: a.url, download: `attachment-${i + 1}` }, `Download ${label}`)));
  });
  if (Object.keys(answer.metadata).length) parts.push(h("details", {}, h("summary", {}, "Metadata"), h("pre", {}, JSON.stringify(answer.metadata, null, 2))));
  byId("result").replaceChildren(...parts);
}

// ── Approvals ────────────────────────────────────────────────────────────────

async function loadApprovals() {
  if (!current) return;
  const session = current;
  try {
    const { approvals } = await api("GET", `${sessionPath(session.id)}/approvals`);
    session.approvals = new Map(approvals.map((/** @type {Approval} */ a) => [a.id, a]));
  } catch (error) {
    if (!isMissingRoute(error)) throw error;
    session.approvalsSupported = false;
  }
  renderApprovals();
}

function renderApprovals() {
  if (!current) return;
  const empty = byId("approvals-empty");
  empty.textContent = current.approvalsSupported ? "None." : "This gateway does not report approvals.";
  empty.hidden = current.approvals.size > 0;
  byId("approvals").replaceChildren(...[...current.approvals.values()].map(approvalItem));
}

/** @param {Approval} a */
function approvalItem(a) {
  const headingId = `approval-${a.id}`;
  const m = a.metadata ?? {};
  /** @type {HTMLElement[]} */
  const facts = [];
  const fact = (/** @type {string} */ k, /** @type {unknown} */ v) => {
    if (v !== undefined && v !== null && v !== "") facts.push(h("dt", {}, k), h("dd", {}, typeof v === "string" ? v : JSON.stringify(v)));
  };
  /** @type {HTMLElement[]} */
  let controls;
  if (a.kind === "elicitation") {
    fact("Message", m.message);
    const fields = h("div", {}, ...schemaFields(m.requestedSchema ?? {}, `elicit-${a.id}`));
    const reply = (/** @type {string} */ r) => async () => {
      try {
        await answerApproval(a.id, r === "accept" ? { reply: r, content: readFields(fields) } : { reply: r });
      } catch (error) {
        complain(error);
      }
    };
    controls = [fields, h("div", { class: "row" },
      h("button", { type: "button", class: "primary", onclick: reply("accept") }, "Accept"),
      h("button", { type: "button", onclick: reply("decline") }, "Decline"),
      h("button", { type: "button", onclick: reply("cancel") }, "Cancel"))];
  } else {
    if (a.kind === "sampling") {
      fact("Model", m.model);
      fact("Model hints", m.hints);
      fact("System prompt", m.systemPrompt);
      fact("First user message", m.firstUserText);
      fact("Content", m.contentKinds);
      fact("Audio bytes", m.audioBytes);
      fact("Max tokens", m.maxTokens);
    } else for (const [k, v] of Object.entries(m)) fact(k, v);
    const reply = (/** @type {string} */ r) => () => answerApproval(a.id, { reply: r }).catch(complain);
    controls = [h("div", { class: "row" },
      h("button", { type: "button", class: "primary", onclick: reply("once") }, "Allow once"),
      h("button", { type: "button", onclick: reply("always") }, "Always allow"),
      h("button", { type: "button", class: "danger", onclick: reply("reject") }, "Reject"))];
  }
  return h("li", { class: "approval", "aria-labelledby": headingId },
    h("h3", { id: headingId }, `${a.kind.charAt(0).toUpperCase()}${a.kind.slice(1)} request from ${a.server}`),
    h("p", { class: "hint" }, h("time", { datetime: a.createdAt }, new Date(a.createdAt).toLocaleTimeString())),
    h("dl", {}, ...facts), ...controls);
}

/** @param {string} approvalId @param {Record<string, unknown>} body */
async function answerApproval(approvalId, body) {
  if (!current) return;
  await api("POST", `${sessionPath(current.id)}/approvals/${encodeURIComponent(approvalId)}`, body);
  current.approvals.delete(approvalId);
  renderApprovals();
  say(`Answered: ${String(body.reply)}.`);
}

// ── Event stream ─────────────────────────────────────────────────────────────

/** Opens the session's event stream; EventSource reconnects by itself, sending Last-Event-ID. */
/** @param {string} id */
function openEvents(id) {
  if (!current) return;
  const stream = new EventSource(`${sessionPath(id)}/events`);
  current.stream = stream;
  const state = byId("stream-state");
  stream.onopen = () => (state.textContent = "live");
  stream.onerror = () => (state.textContent = stream.readyState === EventSource.CLOSED ? "closed" : "reconnecting…");
  for (const type of EVENT_TYPES) {
    stream.addEventListener(type, (event) => {
      if (current?.stream !== stream) return;
      /** @type {Record<string, any>} */
      let data;
      try {
        data = JSON.parse(/** @type {MessageEvent} */ (event).data);
      } catch {
        return;
      }
      logEvent(type, data);
      react(type, data);
    });
  }
}

/** @param {string} type @param {Record<string, any>} d */
function summary(type, d) {
  switch (type) {
    case "server.status": return `${d.server}: ${d.status}${d.error ? ` — ${d.error}` : ""}`;
    case "tools.changed": return `${d.server}: ${d.tools} tools`;
    case "tool.started": return `${d.name}`;
    case "tool.progress": return `${d.name}: ${d.progress}${d.total !== undefined ? `/${d.total}` : ""}${d.message ? ` ${d.message}` : ""}`;
    case "tool.finished": return `${d.name} in ${d.ms} ms${d.isError ? " (error)" : ""}${d.error ? `: ${d.error}` : ""}`;
    case "turn.ended": return `turn ${d.turnId}: ${d.status}`;
    case "log": return `${d.server} [${d.level}] ${typeof d.data === "string" ? d.data : JSON.stringify(d.data)}`;
    case "gap": return `${d.missed} events missed`;
    case "approval.requested": return `${d.kind} from ${d.server}`;
    case "approval.resolved": return `${d.id}: ${d.reply}`;
    case "sampling.progress": return `${d.server}: ${d.chunks} chunks, ${d.characters} characters`;
    default: return JSON.stringify(d);
  }
}

/** @param {string} type @param {Record<string, any>} data */
function logEvent(type, data) {
  const log = byId("events");
  const at = typeof data.at === "string" ? new Date(data.at) : new Date();
  log.append(h("li", { class: `event event-${type.replace(".", "-")}` },
    h("time", { datetime: at.toISOString() }, at.toLocaleTimeString()), " ",
    h("span", { class: "event-type" }, type), " ", summary(type, data).slice(0, 500)));
  while (log.childElementCount > MAX_LOG_ITEMS) log.firstElementChild?.remove();
  log.scrollTop = log.scrollHeight;
}

/** Keeps the page in step with what the stream says. */
/** @param {string} type @param {Record<string, any>} data */
function react(type, data) {
  if (!current) return;
  if (type === "server.status" && typeof data.server === "string") {
    const { server, at: _at, ...status } = data;
    current.servers[server] = /** @type {ServerStatus} */ (status);
    renderServers();
  } else if (type === "tools.changed") {
    loadTools().catch(complain);
  } else if (type === "approval.requested" && typeof data.id === "string") {
    const { at: _at, ...approval } = data;
    current.approvals.set(data.id, /** @type {Approval} */ (approval));
    renderApprovals();
  } else if (type === "approval.resolved" && typeof data.id === "string") {
    current.approvals.delete(data.id);
    renderApprovals();
  }
}

// ── Wiring ───────────────────────────────────────────────────────────────────

function start() {
  const body = /** @type {HTMLTextAreaElement} */ (byId("session-body"));
  body.value = JSON.stringify(EXAMPLE_BODY, null, 2);

  byId("create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    let parsed;
    try {
      parsed = JSON.parse(body.value);
    } catch (error) {
      return complain(new Error(`The session body is not valid JSON: ${error instanceof Error ? error.message : error}`));
    }
    try {
      say("Creating the session (each server connects first)…");
      const session = await api("POST", "/v1/sessions", parsed);
      await openSession(session.id, session);
    } catch (error) {
      complain(error);
    }
  });
  byId("open-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = /** @type {HTMLInputElement} */ (byId("open-id")).value.trim();
    if (id) openSession(id);
  });
  byId("refresh").addEventListener("click", () => Promise.all([refreshSession(), loadTools(), loadApprovals()]).catch(complain));
  byId("delete-session").addEventListener("click", deleteSession);
  byId("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const query = /** @type {HTMLInputElement} */ (byId("tool-query")).value.trim();
    (query ? searchTools(query) : loadTools()).catch(complain);
  });
  byId("call-form").addEventListener("submit", callTool);

  renderRemembered();
  const fromHash = decodeURIComponent(location.hash.slice(1));
  if (fromHash) openSession(fromHash);
}

start();
