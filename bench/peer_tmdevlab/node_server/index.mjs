// The peer's Node.js server (TM Dev Lab v1, nodejs-server/index.js), as they publish it.
//
// Rewritten here from their repository's facts: the official TypeScript SDK 1.26.0 on express 4,
// express.json() body parsing, a new McpServer and a stateless StreamableHTTPServerTransport
// for every POST /mcp (their CVE-2026-25536 mitigation), GET and DELETE /mcp answered 405,
// zod input schemas, results as one JSON text block. As in theirs, calculate_fibonacci is
// iterative here (the Python servers recurse).
//
// Run: NODE_PATH=$PEER_CACHE/node/node_modules node index.mjs  (PORT=8203 by default);
// run.py symlinks node_modules next to this file instead, ESM ignoring NODE_PATH.
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

function upper(value) {
  if (Array.isArray(value)) return value.map(upper);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, upper(v)]));
  }
  return typeof value === 'string' ? value.toUpperCase() : value;
}

function buildServer() {
  const server = new McpServer({ name: 'BenchmarkNodejsServer', version: '1.0.0' });

  server.tool('calculate_fibonacci', 'Computes the n-th Fibonacci number',
    { n: z.number().describe('an integer from 0 to 40') },
    async ({ n }) => {
      if (n < 0 || n > 40) throw new Error('n must be between 0 and 40');
      let a = 0;
      let b = 1;
      for (let i = 0; i < n; i += 1) [a, b] = [b, a + b];
      return text({ input: n, result: a, server_type: 'nodejs' });
    });

  server.tool('fetch_external_data', 'GETs the endpoint; reports its status and time',
    { endpoint: z.string().describe('the full URL') },
    async ({ endpoint }) => {
      const start = Date.now();
      try {
        const response = await fetch(endpoint);
        return text({ url: endpoint, status_code: response.status,
          response_time_ms: Date.now() - start, server_type: 'nodejs' });
      } catch (error) {
        return text({ url: endpoint, status_code: 0, response_time_ms: Date.now() - start,
          error: error.message, server_type: 'nodejs' });
      }
    });

  server.tool('process_json_data', 'Upper-cases every string in the object',
    { data: z.object({}).passthrough().describe('the object to transform') },
    async ({ data }) => text({ original_keys: Object.keys(data), transformed_data: upper(data),
      server_type: 'nodejs' }));

  server.tool('simulate_database_query', 'Waits delay_ms like a database, echoes the query',
    { query: z.string().describe('the SQL text'),
      delay_ms: z.number().default(0).describe('0 to 5000') },
    async ({ query, delay_ms = 0 }) => {
      if (delay_ms < 0 || delay_ms > 5000) throw new Error('delay_ms must be between 0 and 5000');
      await new Promise((resolve) => { setTimeout(resolve, delay_ms); });
      return text({ query, delay_ms, timestamp: new Date().toISOString(), server_type: 'nodejs' });
    });
  return server;
}

const app = express();
app.use(express.json());

app.post('/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = buildServer();
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', async () => {
      await transport.close();
      await server.close();
    });
  } catch (error) {
    if (!res.headersSent) res.status(500).json({ error: error.message });
  }
});
app.get('/mcp', (req, res) => res.status(405).end());
app.delete('/mcp', (req, res) => res.status(405).end());
app.get('/health', (req, res) => res.json({ status: 'ok', server_type: 'nodejs' }));

const port = Number(process.env.PORT || 8203);
app.listen(port, '127.0.0.1', () => console.log(`nodejs MCP server on ${port}`));
