// The official TypeScript SDK client (@modelcontextprotocol/client) against
// examples/everything_server.py, driven by tests/e2e/test_ts_sdk.py.
//
//   node client.mjs CLIENT_ENTRY URL MODE
//
// CLIENT_ENTRY is the installed package's dist/index.mjs (imported by path, so this file
// needs no node_modules of its own); MODE is "modern" (pinned to 2026-07-28: server/discover,
// _meta on every request, input_required rounds, cancel = abort the POST) or "legacy" (the
// 2025 initialize handshake and session: server requests on the POST stream,
// notifications/cancelled, DELETE at the end). It lists, calls, receives progress, cancels
// and completes an elicitation, then prints one JSON report on stdout for the test to check.
// Any failure exits 1 with the error on stderr.

import { pathToFileURL } from "node:url";

const [entry, url, mode] = process.argv.slice(2);
if (!entry || !url || !["modern", "legacy"].includes(mode)) {
  console.error("usage: node client.mjs CLIENT_ENTRY URL modern|legacy");
  process.exit(2);
}
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(entry).href);

const report = { mode };
const asked = [];

const client = new Client(
  { name: "genmcp-ts-interop", version: "1.0.0" },
  {
    capabilities: { elicitation: { form: {} } },
    ...(mode === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
  },
);
client.setRequestHandler("elicitation/create", async (request) => {
  asked.push(request.params);
  return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
});

const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
report.protocolVersion = client.getNegotiatedProtocolVersion();
report.era = client.getProtocolEra();
report.serverInfo = client.getServerVersion();
report.sessionId = transport.sessionId ?? null;

// list
const { tools } = await client.listTools();
report.tools = tools.map((tool) => tool.name);

// call
report.simpleText = (await client.callTool({ name: "test_simple_text", arguments: {} })).content;

// progress
const progress = [];
const progressed = await client.callTool(
  { name: "test_tool_with_progress", arguments: {} },
  { onprogress: (p) => progress.push(p) },
);
report.progress = { notifications: progress, content: progressed.content };

// cancel: abort a 30 s call once it has reported progress twice
const controller = new AbortController();
const seen = [];
const started = Date.now();
try {
  const finished = await client.callTool(
    { name: "test_long_running_operation", arguments: { seconds: 30 } },
    {
      signal: controller.signal,
      timeout: 60_000,
      onprogress: (p) => {
        seen.push(p);
        if (seen.length === 2) controller.abort(new Error("cancelled by the interop test"));
      },
    },
  );
  report.cancel = { outcome: "completed", content: finished.content };
} catch (error) {
  report.cancel = { outcome: "rejected", error: String(error?.message ?? error) };
}
report.cancel.progressSeen = seen.length;
report.cancel.elapsedMs = Date.now() - started;

// elicitation: MRTR rounds on 2026-07-28, a server request on the call's stream in legacy mode
const elicited = await client.callTool({
  name: "test_elicitation",
  arguments: { message: "Who are you?" },
});
report.elicitation = { asked, content: elicited.content };

// the session (or the stateless connection) still serves calls after the cancel
report.after = (await client.callTool({ name: "test_simple_text", arguments: {} })).content;

if (mode === "legacy") {
  await transport.terminateSession(); // DELETE: the session id is 404 from now on
}
await client.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
