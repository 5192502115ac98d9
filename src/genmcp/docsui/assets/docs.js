// genmcp's interactive page: a small MCP client of the endpoint this page is served beside
// (its URL without "/docs"), in either era: 2026-07-28 (stateless, _meta on every request,
// input_required rounds) or a 2025 session (initialize, Mcp-Session-Id, server requests on
// the SSE stream). It lists what the caller may see, builds a form per input schema, calls
// with progress, logs, cancel and elicitation, renders results, and records a timeline.
"use strict";

const MODERN = "2026-07-28";
const UI = "io.modelcontextprotocol/ui";
const APP_MIME = "text/html;profile=mcp-app";
const META = "io.modelcontextprotocol/";
// method -> the params key its Mcp-Name header repeats, as the server serving the page has
// it (genmcp.protocol.methods), inlined beside this script
const NAME_PARAM = JSON.parse(document.getElementById("name-params").textContent);
const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {},
  extensions: { [UI]: { mimeTypes: [APP_MIME] } } };
const CLIENT = { name: "genmcp-docs", version: "1" };
const $ = (id) => document.getElementById(id);

// -- small DOM helpers -------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}
const json = (value) => JSON.stringify(value, null, 2);
const pre = (value, cls) => el("pre", { class: cls }, typeof value === "string" ? value : json(value));
let uid = 0;
const nextId = (prefix) => `${prefix}-${++uid}`;

function setStatus(text, kind) {
  const status = $("status");
  status.textContent = text;
  status.className = kind || "";
}

// -- the timeline --------------------------------------------------------------------------

const started = performance.now();
const asked = {};
function record(direction, message) {
  const label = message.method || (message.error ? "error" : "result");
  if (message.method && message.id !== undefined) asked[message.id] = message.method;
  const of = !message.method && asked[message.id] ? ` of ${asked[message.id]}` : "";
  const summary = el("summary", {},
    el("span", { class: "dir", "aria-label": direction === "out" ? "sent" : "received" },
      direction === "out" ? "→" : "←"),
    label, of, message.id !== undefined ? ` #${message.id}` : "",
    el("span", { class: "ms" }, `${((performance.now() - started) / 1000).toFixed(3)} s`));
  const entry = el("li", { class: message.error ? "err" : "", "data-method": label },
    el("details", {}, summary, pre(message)));
  const list = $("timeline");
  list.prepend(entry);
  while (list.children.length > 300) list.lastChild.remove();
  return summary;
}

// -- the connection ------------------------------------------------------------------------

class RPCError extends Error {
  constructor(error, status) {
    super(error.message || `HTTP ${status}`);
    this.code = error.code;
    this.data = error.data;
    this.status = status;
  }
}

const conn = {
  endpoint: location.pathname.replace(/\/docs\/?$/, "") || "/",
  era: MODERN,
  version: MODERN,
  session: null,
  ending: null,  // the headers that end the session (DELETE): its owner's, not the token's now
  info: null,
  rpc: 0,
  listen: null,
  tools: {},
  generation: 0,
};

function headersFor(method, params, tool) {
  const headers = { "Content-Type": "application/json",
    Accept: "application/json, text/event-stream", "MCP-Protocol-Version": conn.version };
  const token = $("token").value.trim();
  if (token) headers.Authorization = /^\S+\s/.test(token) ? token : `Bearer ${token}`;
  if (conn.era === MODERN && method) {
    headers["Mcp-Method"] = method;
    const key = NAME_PARAM[method];
    if (key && params && typeof params[key] === "string") headers["Mcp-Name"] = params[key];
    const schema = tool && tool.inputSchema && tool.inputSchema.properties;
    for (const [prop, spec] of Object.entries(schema || {})) {
      const value = params.arguments && params.arguments[prop];
      if (spec && spec["x-mcp-header"] && value !== undefined && value !== null) {
        headers[`Mcp-Param-${spec["x-mcp-header"]}`] = String(value);
      }
    }
  }
  if (conn.session) headers["Mcp-Session-Id"] = conn.session;
  return headers;
}

function withMeta(params, extra) {
  const meta = { ...(params._meta || {}), ...(extra || {}) };
  if (conn.era === MODERN) {
    Object.assign(meta, { [META + "protocolVersion"]: MODERN,
      [META + "clientCapabilities"]: CAPABILITIES, [META + "clientInfo"]: CLIENT,
      [META + "logLevel"]: $("log-level").value });
  }
  return Object.keys(meta).length ? { ...params, _meta: meta } : params;
}

// Send one JSON-RPC message; for a request, read the answer (JSON or SSE) and return its
// result. `on.message(m)` sees notifications and server requests on the stream; `on.signal`
// aborts (the 2026-07-28 way to cancel: the server sees the disconnect).
async function request(method, params, on) {
  on = on || {};
  const id = ++conn.rpc;
  const body = { jsonrpc: "2.0", id, method, params: withMeta(params || {}, on.meta) };
  const begun = performance.now();
  const summary = record("out", body);
  const session = conn.session;
  let response;
  try {
    response = await fetch(conn.endpoint, { method: "POST", body: JSON.stringify(body),
      headers: headersFor(method, body.params, on.tool), signal: on.signal, credentials: "same-origin" });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    lost(error);
    throw new RPCError({ message: `cannot reach ${conn.endpoint}: ${error.message}` }, 0);
  }
  const reply = await answer(response, id, on);
  summary.querySelector(".ms").before(el("span", { class: "took" },
    ` · ${Math.round(performance.now() - begun)} ms`));
  if (reply.error) {
    // the session it was sent in ended (not one a later connect has made since)
    if (response.status === 404 && session && conn.session === session) conn.session = null;
    throw new RPCError(reply.error, response.status);
  }
  return reply.result;
}

async function answer(response, id, on) {
  const type = response.headers.get("content-type") || "";
  if (type.startsWith("text/event-stream")) {
    let final = null;
    await readEvents(response, (message) => {
      if (message.id === id && (message.result !== undefined || message.error !== undefined)) {
        final = message;
        record("in", message);
        return true;
      }
      record("in", message);
      serverMessage(message, on);
      return false;
    });
    if (!final) throw new RPCError({ message: "the stream ended without an answer" }, response.status);
    return final;
  }
  if (type.startsWith("application/json")) {
    let message = await response.json();
    if (!message || (message.result === undefined && message.error === undefined)) {
      // an HTTP error of the app (e.g. FastAPI's {"detail": ...}), not JSON-RPC
      message = { jsonrpc: "2.0", id, error: { code: response.status, message:
        `HTTP ${response.status}: ${JSON.stringify((message && message.detail) || message)}` } };
    }
    record("in", message);
    return message;
  }
  const text = await response.text();
  const failed = { jsonrpc: "2.0", id, error: { code: response.status, message:
    `HTTP ${response.status}${text ? ": " + text.slice(0, 300) : ""}` } };
  record("in", failed);
  return failed;
}

// Read an SSE body, calling each(message) per JSON data event until it returns true.
async function readEvents(response, each) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = event.split("\n").filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, "")).join("\n");
      if (!data) continue;
      let message;
      try { message = JSON.parse(data); } catch { continue; }
      if (each(message)) { reader.cancel().catch(() => {}); return; }
    }
  }
}

function serverMessage(message, on) {
  if (message.method && message.id !== undefined) {  // a 2025 server request
    answerServerRequest(message, on).catch((error) => setStatus(error.message, "bad"));
  } else if (message.method) {
    if (on.message) on.message(message);
    if (/list_changed$/.test(message.method)) loadLists();
  }
}

async function answerServerRequest(message, on) {
  const result = await inputFor(message, on.asker);
  await post({ jsonrpc: "2.0", id: message.id, result });
}

async function post(message) {  // a notification or a response: 202, no body
  record("out", message);
  await fetch(conn.endpoint, { method: "POST", body: JSON.stringify(message),
    headers: headersFor(null), credentials: "same-origin" });
}

// -- connecting, and reconnecting after the server went away ---------------------------

// Each connect is a generation: a later one (the era or token changed, a reconnect) makes
// every earlier one stale, and a stale one's answers, arriving late, change nothing: not the
// session, the version, the lists nor the status (its failure included).
async function connect() {
  const generation = ++conn.generation;
  try {
    await connectAs(generation);
  } catch (error) {
    if (generation === conn.generation) throw error;
  }
}

async function connectAs(generation) {
  const current = () => generation === conn.generation;
  stopListening();
  if (conn.session) endSession(conn.ending);  // replaced: not left to the server's TTL
  conn.era = $("era").value;
  conn.session = null;
  conn.ending = null;
  conn.version = conn.era;
  sessionStorage.setItem("genmcp-docs", JSON.stringify({ era: conn.era, token: $("token").value }));
  setStatus("connecting…");
  let info;
  if (conn.era === MODERN) {
    info = await request("server/discover", {});
  } else {
    const initialize = initializeMessage();
    record("out", initialize);
    const headers = headersFor(null);
    const response = await fetch(conn.endpoint, { method: "POST", credentials: "same-origin",
      headers, body: JSON.stringify(initialize) });
    const reply = await answer(response, 0, {});
    const session = response.headers.get("mcp-session-id");
    const ending = session && { "Mcp-Session-Id": session,
      "MCP-Protocol-Version": (reply.result && reply.result.protocolVersion) || conn.era,
      ...(headers.Authorization ? { Authorization: headers.Authorization } : {}) };
    if (!current()) {  // switched meanwhile: this session is not the page's; end it
      if (session) endSession(ending);
      return;
    }
    if (reply.error) throw new RPCError(reply.error, response.status);
    info = reply.result;
    conn.session = session;
    conn.ending = ending;
    conn.version = info.protocolVersion;
    await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (current() && info.capabilities && info.capabilities.logging) {
      await request("logging/setLevel", { level: $("log-level").value }).catch(() => {});
    }
  }
  if (!current()) return;
  conn.info = info;
  const server = info.serverInfo || (info._meta && info._meta[META + "serverInfo"]) || {};
  document.title = `${server.title || server.name || "MCP"} · docs`;
  $("title").textContent = `${server.title || server.name || "MCP server"} ${server.version || ""}`;
  await loadLists(generation);
  if (!current()) return;
  setStatus(`connected · ${conn.version}${conn.session ? " · session" : ""}`, "ok");
  listen(generation);
}

// End a 2025 session the page no longer uses (DELETE, as the headers of the one who opened
// it): replaced by a later connect, or opened by one that was replaced before its answer
// came. Not waited for; a failure (the server gone, the session over already) is ignored.
function endSession(headers) {
  if (!headers) return;
  fetch(conn.endpoint, { method: "DELETE", headers, credentials: "same-origin", keepalive: true })
    .catch(() => {});
}

function initializeMessage() {
  return { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: conn.era,
    capabilities: CAPABILITIES, clientInfo: CLIENT } };
}

// A long-lived stream (subscriptions/listen, or the session's GET): list changes arrive on
// it, and its end means the server went away (a reload): then reconnect until it answers.
async function listen(generation) {
  const control = new AbortController();
  conn.listen = control;
  try {
    let response;
    if (conn.era === MODERN) {
      const params = withMeta({ notifications: { toolsListChanged: true,
        promptsListChanged: true, resourcesListChanged: true } });
      const body = { jsonrpc: "2.0", id: ++conn.rpc, method: "subscriptions/listen", params };
      record("out", body);
      response = await fetch(conn.endpoint, { method: "POST", body: JSON.stringify(body),
        headers: headersFor(body.method, params), signal: control.signal, credentials: "same-origin" });
    } else {
      const headers = headersFor(null);
      headers.Accept = "text/event-stream";
      delete headers["Content-Type"];
      response = await fetch(conn.endpoint, { headers, signal: control.signal, credentials: "same-origin" });
    }
    if (!(response.headers.get("content-type") || "").startsWith("text/event-stream")) {
      await answer(response, -1, {});
      return;  // no listening here: nothing to reconnect on
    }
    await readEvents(response, (message) => {
      record("in", message);
      serverMessage(message, {});
      return false;
    });
  } catch (error) {
    if (error.name === "AbortError") return;
  }
  if (generation === conn.generation && conn.listen === control) lost();
}

function stopListening() {
  if (conn.listen) conn.listen.abort();
  conn.listen = null;
}

let reconnecting = false;
async function lost() {
  if (reconnecting) return;
  reconnecting = true;
  stopListening();
  let wait = 250;
  try {
    for (;;) {
      setStatus("disconnected · reconnecting…", "bad");
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 2000);
      try {
        const probe = await fetch(conn.endpoint, { method: "HEAD", credentials: "same-origin" });
        if (probe.status >= 500) continue;
        await connect();
        return;
      } catch (error) {
        if (error.status) {  // the server answers, but refuses: say why, stop trying
          setStatus(`failed: ${error.message}`, "bad");
          return;
        }
      }
    }
  } finally {
    reconnecting = false;
  }
}

// -- lists ---------------------------------------------------------------------------------

const SECTIONS = [
  ["tools", "Tools", "tools/list", "tools", "tools"],
  ["resources", "Resources", "resources/list", "resources", "resources"],
  ["templates", "Templates", "resources/templates/list", "resourceTemplates", "resources"],
  ["prompts", "Prompts", "prompts/list", "prompts", "prompts"],
  ["skills", "Skills", "skills/list", "skills", null],
];
const lists = {};
let selected = null;
let listing = 0;

async function listAll(method, key) {
  const items = [];
  let cursor;
  for (let page = 0; page < 50; page++) {
    const result = await request(method, cursor ? { cursor } : {});
    items.push(...(result[key] || []));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return items;
}

// The lists of connection `generation`, read whole, then shown: only by the newest listing of
// the current connection (a stale one's lists, of another era or token, are dropped).
async function loadLists(generation = conn.generation) {
  const mine = ++listing;
  const capabilities = (conn.info && conn.info.capabilities) || {};
  const skills = capabilities.extensions && capabilities.extensions["io.modelcontextprotocol/skills"];
  const read = {};
  const blocks = [el("button", { type: "button", "data-kind": "server",
    onclick: () => show("server") }, "Server")];
  for (const [kind, title, method, key, capability] of SECTIONS) {
    if (capability ? !capabilities[capability] : !skills) { read[kind] = []; continue; }
    try {
      read[kind] = await listAll(method, key);
    } catch (error) {
      read[kind] = [];
      blocks.push(el("p", { class: "err" }, `${title}: ${error.message}`));
      continue;
    }
    const id = `nav-${kind}`;
    blocks.push(el("h2", { id }, `${title} (${read[kind].length})`),
      el("ul", { "aria-labelledby": id }, read[kind].map((item, index) => el("li", {},
        el("button", { type: "button", "data-kind": kind, "data-name": itemName(kind, item),
          onclick: () => show(kind, index) }, item.title || itemName(kind, item))))));
  }
  if (generation !== conn.generation || mine !== listing) return;
  Object.assign(lists, read);
  conn.tools = Object.fromEntries(lists.tools.map((t) => [t.name, t]));
  $("nav").replaceChildren(...blocks);
  // keep showing what was shown (after a reconnect or a list change), if it is still there
  if (!selected || selected.kind === "server") { show("server"); return; }
  const again = (lists[selected.kind] || []).findIndex((item) => itemName(selected.kind, item) === selected.name);
  if (again >= 0) show(selected.kind, again);
  else show("server");
}

function itemName(kind, item) {
  if (kind === "resources") return item.uri;
  if (kind === "templates") return item.uriTemplate;
  return item.name;
}

function show(kind, index) {
  const item = kind === "server" ? null : lists[kind][index];
  selected = { kind, name: item ? itemName(kind, item) : null };
  for (const button of $("nav").querySelectorAll("button")) {
    const current = button.dataset.kind === kind && (kind === "server" || button.dataset.name === selected.name);
    button.setAttribute("aria-current", current ? "true" : "false");
  }
  const views = { server: showServer, tools: showTool, resources: showResource,
    templates: showTemplate, prompts: showPrompt, skills: showSkill };
  $("detail").replaceChildren(...views[kind](item).flat().filter((node) => node));
}

// -- the views -------------------------------------------------------------------------------

function showServer() {
  const info = conn.info || {};
  const server = info.serverInfo || (info._meta && info._meta[META + "serverInfo"]) || {};
  return [el("h2", {}, "Server"),
    el("dl", {}, el("dt", {}, "Name"), el("dd", { id: "server-name" }, server.name || "?"),
      el("dt", {}, "Version"), el("dd", {}, server.version || "?"),
      el("dt", {}, "Protocol"), el("dd", { id: "server-protocol" }, conn.version),
      conn.session ? [el("dt", {}, "Session"), el("dd", {}, conn.session)] : null),
    info.instructions ? [el("h3", {}, "Instructions"), pre(info.instructions)] : null,
    el("h3", {}, "Capabilities"), pre(info.capabilities || {}, "capabilities"),
    el("p", { class: "muted" }, "This page calls the endpoint as you: it lists only what your token ",
      "(or cookies) may see.")];
}

function heading(kind, item, name) {
  return [el("h2", {}, item.title ? `${item.title} ` : "", el("code", {}, name),
    el("span", { class: "badge" }, kind)),
    item.description ? el("p", { class: "description" }, item.description) : null];
}

function showTool(tool) {
  const out = el("div", { class: "outcome", "aria-live": "polite" });
  const form = buildForm(tool.inputSchema || { type: "object" }, {}, `tool-${tool.name}`);
  const call = el("button", { type: "submit", class: "call" }, "Call");
  const cancel = el("button", { type: "button", class: "cancel", disabled: true }, "Cancel");
  const formNode = el("form", { class: "tool-form", "aria-label": `Arguments of ${tool.name}`,
    onsubmit: (event) => { event.preventDefault(); callTool(tool, form.read(), { out, call, cancel }); } },
    form.node, el("div", { class: "actions" }, call, cancel));
  const annotations = tool.annotations && Object.keys(tool.annotations).length ? tool.annotations : null;
  return [...heading("tool", tool, tool.name),
    annotations ? el("p", { class: "muted" }, Object.entries(annotations).map(([k, v]) => `${k}: ${v}`).join(" · ")) : null,
    el("details", {}, el("summary", {}, "Input schema"), pre(tool.inputSchema || {})),
    tool.outputSchema ? el("details", {}, el("summary", {}, "Output schema"), pre(tool.outputSchema)) : null,
    formNode, out];
}

function showResource(resource) {
  const out = el("div", { class: "outcome" });
  return [...heading("resource", resource, resource.uri),
    el("p", { class: "muted" }, resource.mimeType || ""),
    el("div", { class: "actions" }, el("button", { type: "button", class: "read",
      onclick: () => readInto(resource.uri, out) }, "Read")), out];
}

function showTemplate(template) {
  const names = [...template.uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)]
    .flatMap((m) => m[1].split(",").map((n) => n.replace(/\*$/, "").replace(/:\d+$/, "")));
  const schema = { type: "object", required: names,
    properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])) };
  const ref = { type: "ref/resource", uri: template.uriTemplate };
  const form = buildForm(schema, { ref }, `template-${uid}`);
  const out = el("div", { class: "outcome" });
  return [...heading("template", template, template.uriTemplate),
    el("form", { "aria-label": "Template variables", onsubmit: (event) => {
      event.preventDefault();
      const values = form.read();
      const uri = template.uriTemplate.replace(/\{[+#./;?&]?([^}]+)\}/g, (_, inner) =>
        inner.split(",").map((n) => encodeURIComponent(values[n.replace(/\*$/, "")] || "")).join(","));
      readInto(uri, out);
    } }, form.node, el("div", { class: "actions" }, el("button", { type: "submit" }, "Read"))), out];
}

function showPrompt(prompt) {
  const args = prompt.arguments || [];
  const schema = { type: "object", required: args.filter((a) => a.required).map((a) => a.name),
    properties: Object.fromEntries(args.map((a) => [a.name, { type: "string", description: a.description }])) };
  const form = buildForm(schema, { ref: { type: "ref/prompt", name: prompt.name } }, `prompt-${uid}`);
  const out = el("div", { class: "outcome" });
  return [...heading("prompt", prompt, prompt.name),
    el("form", { "aria-label": `Arguments of ${prompt.name}`, onsubmit: async (event) => {
      event.preventDefault();
      out.replaceChildren(el("p", { class: "muted" }, "getting…"));
      try {
        const result = await request("prompts/get", { name: prompt.name, arguments: form.read() });
        out.replaceChildren(el("h3", {}, "Messages"), ...(result.messages || []).map((m) =>
          el("div", { class: "message" }, el("strong", {}, m.role), renderBlock(m.content))));
      } catch (error) { out.replaceChildren(failure(error)); }
    } }, form.node, el("div", { class: "actions" }, el("button", { type: "submit" }, "Get"))), out];
}

function showSkill(skill) {
  const out = el("div", { class: "outcome" });
  const uri = skill.uri || (skill.resource && skill.resource.uri);
  return [...heading("skill", skill, skill.name), pre(skill),
    uri ? el("div", { class: "actions" }, el("button", { type: "button",
      onclick: () => readInto(uri, out) }, "Read SKILL.md")) : null, out];
}

function failure(error) {
  return el("p", { class: "err", role: "alert" }, error.code !== undefined && error.code !== null ?
    `Error ${error.code}: ${error.message}` : error.message);
}

async function readInto(uri, out) {
  out.replaceChildren(el("p", { class: "muted" }, "reading…"));
  try {
    const result = await request("resources/read", { uri });
    out.replaceChildren(el("h3", {}, "Contents"), ...(result.contents || []).map(renderResource));
  } catch (error) { out.replaceChildren(failure(error)); }
}

// -- forms from JSON Schema ------------------------------------------------------------------

function resolve(schema, root) {
  let seen = 0;
  while (schema && schema.$ref && seen++ < 20) {
    const path = schema.$ref.replace(/^#\//, "").split("/");
    let target = root;
    for (const part of path) target = target && target[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    schema = target ? { ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")) } : {};
  }
  // Optional[X] (anyOf X, null) is X; a oneOf/anyOf of consts is an enum
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema && schema[key];
    if (!Array.isArray(options)) continue;
    const real = options.filter((o) => o.type !== "null");
    if (real.length === 1) return { ...resolve(real[0], root), ...omit(schema, key), nullable: true };
    if (real.every((o) => o.const !== undefined)) {
      return { ...omit(schema, key), type: typeof real[0].const === "number" ? "number" : "string",
        enum: real.map((o) => o.const), enumTitles: real.map((o) => o.title || String(o.const)) };
    }
  }
  return schema || {};
}
const omit = (object, key) => Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

// A form for `schema` (an object schema): {node, read()} with read() the arguments object.
function buildForm(schema, options, prefix) {
  const root = schema;
  const field = objectField(resolve(schema, root), root, prefix, null, options, true);
  return { node: field.node, read: () => field.read() || {} };
}

function typeOf(schema) {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type) return type;
  if (schema.properties) return "object";
  if (schema.enum) return "string";
  return null;
}

function anyField(raw, root, id, label, required, options) {
  const schema = resolve(raw, root);
  const type = typeOf(schema);
  if (type === "object" && schema.properties) return objectField(schema, root, id, label, options, false);
  if (type === "array" && schema.items && typeOf(resolve(schema.items, root)) !== "array") {
    return arrayField(schema, root, id, label, options);
  }
  return leafField(schema, type, id, label, required, options);
}

function objectField(schema, root, id, label, options, top) {
  const required = new Set(schema.required || []);
  const fields = Object.entries(schema.properties || {}).map(([name, spec]) =>
    [name, anyField(spec, root, `${id}-${name}`, name, required.has(name), options)]);
  const readers = () => Object.fromEntries(fields.map(([name, f]) => [name, f.read()]));
  const node = top ? el("div", { class: "fields" }, fields.map(([, f]) => f.node),
    fields.length ? null : el("p", { class: "muted" }, "No arguments."))
    : el("fieldset", {}, el("legend", {}, label), schema.description ?
      el("p", { class: "hint" }, schema.description) : null, fields.map(([, f]) => f.node));
  for (const [name, f] of fields) f.siblings = readers;  // completions send the others
  return { node, read: () => {
    const value = {};
    for (const [name, f] of fields) {
      const v = f.read();
      if (v !== undefined) value[name] = v;
    }
    return top || Object.keys(value).length ? value : undefined;
  } };
}

function arrayField(schema, root, id, label, options) {
  const list = el("div", { class: "items" });
  const items = [];
  const add = (initial) => {
    const index = uid++;
    const item = anyField({ ...resolve(schema.items, root), default: initial }, root,
      `${id}-${index}`, `${label} item`, true, options);
    const row = el("div", { class: "item" }, item.node, el("button", { type: "button",
      "aria-label": `Remove ${label} item`, onclick: () => { row.remove(); items.splice(items.indexOf(item), 1); } }, "−"));
    items.push(item);
    list.append(row);
  };
  for (const value of Array.isArray(schema.default) ? schema.default : []) add(value);
  const node = el("fieldset", { class: "array" }, el("legend", {}, label, " (list)"),
    schema.description ? el("p", { class: "hint" }, schema.description) : null, list,
    el("button", { type: "button", class: "add", onclick: () => add() }, `Add ${label} item`));
  return { node, read: () => {
    const values = items.map((i) => i.read()).filter((v) => v !== undefined);
    return values.length ? values : undefined;
  } };
}

function leafField(schema, type, id, label, required, options) {
  const hint = [schema.description, schema.format ? `format: ${schema.format}` : null,
    schema.minimum !== undefined ? `min ${schema.minimum}` : null,
    schema.maximum !== undefined ? `max ${schema.maximum}` : null].filter(Boolean).join(" · ");
  const hintId = hint ? `${id}-hint` : undefined;
  const common = { id, name: label, "aria-describedby": hintId, required: required || undefined };
  let input, read, completions = null;
  if (schema.enum) {
    input = el("select", common, required ? null : el("option", { value: "" }, "—"),
      schema.enum.map((value, i) => el("option", { value: JSON.stringify(value),
        selected: schema.default === value }, (schema.enumTitles || schema.enumNames || [])[i] || String(value))));
    read = () => (input.value === "" ? undefined : JSON.parse(input.value));
  } else if (type === "boolean") {
    input = el("input", { ...common, type: "checkbox", required: undefined, checked: schema.default === true });
    read = () => input.checked;
  } else if (type === "integer" || type === "number") {
    input = el("input", { ...common, type: "number", step: type === "integer" ? "1" : "any",
      min: schema.minimum, max: schema.maximum, value: schema.default });
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (type === "string") {
    const kinds = { email: "email", uri: "url", date: "date", "date-time": "datetime-local", time: "time" };
    input = el("input", { ...common, type: kinds[schema.format] || "text", value: schema.default,
      minlength: schema.minLength, maxlength: schema.maxLength, pattern: schema.pattern });
    read = () => {
      if (input.value === "") return undefined;
      return schema.format === "date-time" ? new Date(input.value).toISOString() : input.value;
    };
    if (options && options.ref && conn.info && conn.info.capabilities && conn.info.capabilities.completions) {
      completions = completeInto(input, label, options.ref, () => field.siblings && field.siblings());
    }
  } else {
    input = el("textarea", { ...common, rows: 3, placeholder: "JSON" },
      schema.default !== undefined ? JSON.stringify(schema.default) : "");
    read = () => (input.value.trim() === "" ? undefined : JSON.parse(input.value));
  }
  const field = { read, node: el("div", { class: "field" },
    el("label", { for: id, class: required ? "req" : "" }, schema.title || label),
    input, completions, hint ? el("div", { class: "hint", id: hintId }, hint) : null) };
  return field;
}

// A datalist the server's completion/complete fills as the user types.
function completeInto(input, name, ref, others) {
  const list = el("datalist", { id: `${input.id}-options` });
  input.setAttribute("list", list.id);
  let timer = null;
  const ask = async () => {
    const context = {};
    const values = others() || {};
    for (const [key, value] of Object.entries(values)) {
      if (key !== name && typeof value === "string") context[key] = value;
    }
    try {
      const result = await request("completion/complete", { ref,
        argument: { name, value: input.value }, context: { arguments: context } });
      list.replaceChildren(...((result.completion && result.completion.values) || [])
        .map((value) => el("option", { value })));
      input.dataset.completions = String(list.children.length);
    } catch { /* no completions for this field */ }
  };
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(ask, 150); });
  input.addEventListener("focus", () => { if (!list.children.length) ask(); });
  return list;
}

// -- calling a tool ------------------------------------------------------------------------

async function callTool(tool, args, ui) {
  const control = new AbortController();
  const progress = el("progress", { class: "progress", "aria-label": "Progress" });
  const progressText = el("span", { class: "progress-text muted" });
  const logs = el("ul", { class: "logs", "aria-label": "Log lines" });
  const asker = el("div", { class: "asks" });
  const result = el("div", { class: "result-slot" });
  ui.out.replaceChildren(el("div", { class: "actions" }, progress, progressText), asker, logs, result);
  ui.call.disabled = true;
  ui.cancel.disabled = false;
  let id = null;
  ui.cancel.onclick = () => {
    control.abort();
    if (conn.era !== MODERN && id !== null) {
      post({ jsonrpc: "2.0", method: "notifications/cancelled",
        params: { requestId: id, reason: "cancelled in the docs page" } }).catch(() => {});
    }
  };
  const token = nextId("progress");
  const on = { signal: control.signal, tool, asker, meta: { progressToken: token },
    message: (message) => {
      const params = message.params || {};
      if (message.method === "notifications/progress" && params.progressToken === token) {
        if (params.total) { progress.max = params.total; progress.value = params.progress; }
        progressText.textContent = `${params.progress}${params.total ? " / " + params.total : ""}` +
          (params.message ? ` · ${params.message}` : "");
      } else if (message.method === "notifications/message") {
        logs.append(el("li", { "data-level": params.level },
          `${params.logger ? params.logger + ": " : ""}${typeof params.data === "string" ? params.data : JSON.stringify(params.data)}`));
      }
    } };
  const params = { name: tool.name, arguments: args };
  try {
    let answer;
    for (let round = 0; round < 10; round++) {
      id = conn.rpc + 1;
      answer = await request("tools/call", params, on);
      if (answer.resultType !== "input_required") break;
      const responses = {};
      for (const [key, asked] of Object.entries(answer.inputRequests || {})) {
        responses[key] = await inputFor(asked, asker);
      }
      params.inputResponses = responses;
      if (answer.requestState !== undefined) params.requestState = answer.requestState;
      else delete params.requestState;
    }
    progress.max = progress.max || 1;
    progress.value = progress.max;
    result.replaceChildren(renderResult(answer, tool));
    if (appUri(tool)) showApp(tool, args, answer, result);
  } catch (error) {
    progress.removeAttribute("value");
    result.replaceChildren(error.name === "AbortError" ?
      el("p", { class: "cancelled muted", role: "status" }, "Cancelled.") : failure(error));
  } finally {
    ui.call.disabled = false;
    ui.cancel.disabled = true;
  }
}

// What the user answers to a server's request (elicitation, sampling, roots), as its result.
function inputFor(asked, slot) {
  slot = slot || $("detail");
  const params = asked.params || {};
  if (asked.method === "roots/list") {
    slot.append(el("p", { class: "muted" }, "The server asked for roots: answered none."));
    return Promise.resolve({ roots: [] });
  }
  return new Promise((done) => {
    const box = el("section", { class: "ask", "aria-label": "The server asks" });
    const finish = (result) => { box.remove(); slot.append(el("p", { class: "muted answered" },
      `Answered: ${result.action || "sent"}`)); done(result); };
    if (asked.method === "elicitation/create" && params.mode === "url") {
      box.append(el("h3", {}, "The server asks you to open a page"), el("p", {}, params.message),
        /^https?:\/\//i.test(params.url || "")  // never a javascript: link on this origin
          ? el("a", { href: params.url, target: "_blank", rel: "noopener noreferrer" }, params.url)
          : el("code", {}, String(params.url)),
        el("div", { class: "actions" },
          el("button", { type: "button", onclick: () => finish({ action: "accept" }) }, "Done"),
          el("button", { type: "button", onclick: () => finish({ action: "decline" }) }, "Decline")));
    } else if (asked.method === "elicitation/create") {
      const form = buildForm(params.requestedSchema || { type: "object" }, {}, nextId("ask"));
      box.append(el("h3", {}, "The server asks"), el("p", { class: "ask-message" }, params.message),
        el("form", { "aria-label": params.message, onsubmit: (event) => {
          event.preventDefault(); finish({ action: "accept", content: form.read() });
        } }, form.node, el("div", { class: "actions" },
          el("button", { type: "submit", class: "accept" }, "Accept"),
          el("button", { type: "button", class: "decline", onclick: () => finish({ action: "decline" }) }, "Decline"),
          el("button", { type: "button", onclick: () => finish({ action: "cancel" }) }, "Cancel"))));
    } else if (asked.method === "sampling/createMessage") {
      const reply = el("textarea", { id: nextId("sample"), rows: 3 });
      box.append(el("h3", {}, "The server asks for a completion (sampling)"), pre(params.messages || params),
        el("label", { for: reply.id }, "Your reply, as the model"), reply,
        el("div", { class: "actions" }, el("button", { type: "button", onclick: () => done(
          { role: "assistant", model: "human-in-the-docs-page", stopReason: "endTurn",
            content: { type: "text", text: reply.value } }) || box.remove() }, "Send")));
    } else {
      done({});
      return;
    }
    slot.append(box);
    const first = box.querySelector("input, select, textarea, button");
    if (first) first.focus();
  });
}

// -- results ---------------------------------------------------------------------------------

function renderResult(result, tool) {
  const node = el("div", { class: `result${result.isError ? " error" : ""}`, role: "region",
    "aria-label": "Result" }, el("h3", {}, result.isError ? "Error result" : "Result"));
  for (const block of result.content || []) node.append(renderBlock(block));
  if (result.structuredContent !== undefined) {
    const problems = tool && tool.outputSchema ? check(result.structuredContent, tool.outputSchema, tool.outputSchema, "$") : [];
    node.append(el("h3", {}, "Structured content"), pre(result.structuredContent, "structured"),
      tool && tool.outputSchema ? el("p", { class: problems.length ? "err schema-check" : "muted schema-check" },
        problems.length ? `Does not match the output schema: ${problems.join("; ")}` : "Matches the output schema.") : null);
  }
  return node;
}

function renderBlock(block) {
  const wrap = (child) => el("div", { class: `block block-${block.type}` }, child);
  if (block.type === "text") return wrap(pre(block.text, "text"));
  if (block.type === "image") {
    return wrap(el("img", { src: `data:${block.mimeType};base64,${block.data}`, alt: `image (${block.mimeType})` }));
  }
  if (block.type === "audio") {
    return wrap(el("audio", { controls: true, src: `data:${block.mimeType};base64,${block.data}`,
      "aria-label": `audio (${block.mimeType})` }));
  }
  if (block.type === "resource") return wrap(renderResource(block.resource || {}));
  if (block.type === "resource_link") {
    const out = el("div", {});
    return wrap(el("div", {}, el("span", {}, "Link: "), el("code", {}, block.uri), " ",
      block.name ? el("span", { class: "muted" }, block.name) : null, " ",
      el("button", { type: "button", class: "follow", onclick: () => readInto(block.uri, out) }, "Read"), out));
  }
  return wrap(pre(block));
}

function renderResource(contents) {
  const head = el("div", { class: "muted" }, el("code", {}, contents.uri || ""), " ", contents.mimeType || "");
  let body;
  if (contents.text !== undefined) body = pre(contents.text, "text");
  else if (contents.blob !== undefined && /^image\//.test(contents.mimeType || "")) {
    body = el("img", { src: `data:${contents.mimeType};base64,${contents.blob}`, alt: contents.uri || "image" });
  } else if (contents.blob !== undefined && /^audio\//.test(contents.mimeType || "")) {
    body = el("audio", { controls: true, src: `data:${contents.mimeType};base64,${contents.blob}` });
  } else if (contents.blob !== undefined) {
    body = el("a", { href: `data:${contents.mimeType || "application/octet-stream"};base64,${contents.blob}`,
      download: (contents.uri || "resource").split("/").pop() }, "Download");
  }
  return el("div", { class: "resource" }, head, body);
}

// A small JSON Schema check (type, required, properties, items, enum) for structured results.
function check(value, schema, root, at) {
  schema = resolve(schema, root);
  const problems = [];
  const type = typeOf(schema);
  const actual = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  const fits = !type || type === actual || (type === "integer" && Number.isInteger(value)) ||
    (type === "number" && actual === "number") || (schema.nullable && value === null);
  if (!fits) return [`${at} is ${actual}, not ${type}`];
  if (schema.enum && !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) problems.push(`${at} is not one of the enum`);
  if (actual === "object" && value) {
    for (const key of schema.required || []) if (!(key in value)) problems.push(`${at}.${key} is missing`);
    for (const [key, spec] of Object.entries(schema.properties || {})) {
      if (key in value) problems.push(...check(value[key], spec, root, `${at}.${key}`));
    }
  }
  if (actual === "array" && schema.items) value.forEach((v, i) => problems.push(...check(v, schema.items, root, `${at}[${i}]`)));
  return problems;
}

// -- MCP Apps views --------------------------------------------------------------------------

function appUri(tool) {
  const meta = tool._meta || {};
  return (meta.ui && meta.ui.resourceUri) || meta["ui/resourceUri"];
}

// The view's Content-Security-Policy, from the _meta.ui.csp it declares (the contents' own,
// else its resources/list entry's) or, declaring none, the extension's restrictive default:
// nothing loaded from or sent to another origin. Origins the page cannot read as
// scheme://host[:port] are dropped (a ";" must not add a directive).
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?\/?$/;
function viewPolicy(contents) {
  const listed = (lists.resources || []).find((r) => r.uri === contents.uri);
  const ui = (contents._meta && contents._meta.ui) || (listed && listed._meta && listed._meta.ui) || {};
  const csp = ui.csp || {};
  const origins = (key) => (Array.isArray(csp[key]) ? csp[key] : [])
    .filter((o) => typeof o === "string" && ORIGIN.test(o)).map((o) => o.replace(/\/$/, ""));
  const res = origins("resourceDomains");
  const or = (list, none) => (list.length ? list.join(" ") : none);
  return [["default-src", "'none'"],
    ["script-src", "'self' 'unsafe-inline'", ...res], ["style-src", "'self' 'unsafe-inline'", ...res],
    ["img-src", "'self' data:", ...res], ["font-src", "'self' data:", ...res],
    ["media-src", "'self' data:", ...res],
    ["connect-src", or(origins("connectDomains"), "'none'")],
    ["frame-src", or(origins("frameDomains"), "'none'")],
    ["base-uri", or(origins("baseUriDomains"), "'self'")], ["form-action", "'none'"]]
    .map((directive) => directive.join(" ")).join("; ");
}

// The view's document with the policy as the first element of its <head>, before anything
// of the view's own can load (parsed by DOMParser, which runs nothing).
function withPolicy(html, policy) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const meta = doc.createElement("meta");
  meta.httpEquiv = "Content-Security-Policy";
  meta.content = policy;
  doc.head.prepend(meta);
  return `<!DOCTYPE html>\n${doc.documentElement.outerHTML}`;
}

function decodeBlob(blob) {
  const bytes = Uint8Array.from(atob(blob || ""), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

// The tool's ui:// view in a sandboxed iframe (scripts only, opaque origin) under its CSP,
// bridged over postMessage: ui/initialize, the tool's input and result, its app tool calls.
async function showApp(tool, args, result, slot) {
  const uri = appUri(tool);
  let contents;
  try {
    const read = await request("resources/read", { uri });
    contents = (read.contents || []).find((c) => c.uri === uri) || (read.contents || [])[0];
  } catch (error) { slot.append(failure(error)); return; }
  if (!contents) return;
  const policy = viewPolicy(contents);
  const html = withPolicy(contents.text !== undefined ? contents.text : decodeBlob(contents.blob), policy);
  const frame = el("iframe", { class: "app-view", sandbox: "allow-scripts", title: `View of ${tool.name}` });
  const send = (message) => frame.contentWindow && frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, "*");
  const onMessage = async (event) => {
    if (event.source !== frame.contentWindow || !event.data || event.data.jsonrpc !== "2.0") return;
    const message = event.data;
    if (message.method === "ui/initialize") {
      send({ id: message.id, result: { protocolVersion: "2026-01-26", hostInfo: CLIENT,
        hostCapabilities: { serverTools: {}, serverResources: {}, logging: {} },
        hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"],
          toolInfo: { tool } } } });
    } else if (message.method === "ui/notifications/initialized") {
      send({ method: "ui/notifications/tool-input", params: { arguments: args } });
      send({ method: "ui/notifications/tool-result", params: result });
    } else if (message.method === "ui/notifications/size-changed") {
      if (message.params && message.params.height) frame.style.height = `${Math.min(message.params.height + 4, 2000)}px`;
    } else if (message.id !== undefined && (message.method === "tools/call" || message.method === "resources/read")) {
      const target = message.method === "tools/call" && conn.tools[(message.params || {}).name];
      const visibility = target && target._meta && target._meta.ui && target._meta.ui.visibility;
      if (message.method === "tools/call" && (!target || (visibility && !visibility.includes("app")))) {
        send({ id: message.id, error: { code: -32602, message: "tool not callable by apps" } });
        return;
      }
      try {
        send({ id: message.id, result: await request(message.method, message.params || {}, { tool: target }) });
      } catch (error) { send({ id: message.id, error: { code: error.code || -32000, message: error.message } }); }
    } else if (message.id !== undefined && message.method) {
      send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
    }
  };
  window.addEventListener("message", onMessage);
  frame.srcdoc = html;
  slot.append(el("h3", {}, "App view"), frame, el("details", { class: "view-policy" },
    el("summary", {}, "Its Content-Security-Policy"), pre(policy.replaceAll("; ", ";\n"), "policy")));
}

// -- start -----------------------------------------------------------------------------------

function start() {
  $("endpoint").value = conn.endpoint;
  const saved = JSON.parse(sessionStorage.getItem("genmcp-docs") || "{}");
  if (saved.era) $("era").value = saved.era;
  if (saved.token) $("token").value = saved.token;
  const go = () => connect().catch((error) => {
    setStatus(error.status === 401 ? "unauthorized: paste a bearer token" : `failed: ${error.message}`, "bad");
    $("nav").replaceChildren();
    $("detail").replaceChildren(failure(error));
  });
  $("connect").addEventListener("submit", (event) => { event.preventDefault(); go(); });
  $("era").addEventListener("change", go);
  $("clear-timeline").addEventListener("click", () => $("timeline").replaceChildren());
  go();
}

start();
