// mcp-remote (pinned in package.json), the stdio bridge through which
// desktop hosts such as Claude Desktop reach remote servers, against the real
// binary with an API key and its HTTP transport only. A client of the
// official TypeScript SDK drives it over stdio, as a host would. Between the
// bridge and finance sits a recorder that notes the JSON-RPC method and the
// MCP-Protocol-Version of every request, so the test sees the version the
// bridge actually speaks with finance: in its default "legacy" mode it passes
// the host's initialize through and stays on the host's newest version,
// 2025-11-25; with --protocol auto it finds 2026-07-28 through server/discover
// and speaks only that, never sending initialize.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFinance } from './finance-server.mjs';

const bridge = join(import.meta.dirname, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const email = 'mcp-remote-e2e@example.com';

let finance;
let key;
let recorder;
let configDir;

before(async () => {
  finance = await startFinance();
  finance.cli(['users', 'create', '--email', email, '--name', 'E2E', '--plan', 'pro']);
  key = finance.cli(['keys', 'create', '--user', email, '--name', 'mcp-remote',
    '--scopes', 'finance:read,expenses:write,mcp:connect']).trim();
  recorder = await startRecorder(new URL(finance.baseURL));
  // The bridge keeps its state under this directory instead of ~/.mcp-auth.
  configDir = mkdtempSync(join(tmpdir(), 'finance-mcp-remote-'));
});

after(async () => {
  await finance?.stop();
  await new Promise((r) => (recorder ? recorder.server.close(r) : r()));
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

/**
 * A reverse proxy in front of finance that records, for each POST, the
 * JSON-RPC method, the MCP-Protocol-Version header, the status, and the
 * protocolVersion of an initialize result.
 */
async function startRecorder(target) {
  const log = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry = { httpMethod: req.method, version: req.headers['mcp-protocol-version'] };
      if (req.method === 'POST') {
        try { entry.method = JSON.parse(body).method; } catch { /* not JSON-RPC */ }
      }
      const headers = { ...req.headers, host: target.host };
      const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (upRes) => {
        const answer = [];
        upRes.on('data', (c) => answer.push(c));
        upRes.on('end', () => {
          const text = Buffer.concat(answer);
          entry.status = upRes.statusCode;
          if (entry.method === 'initialize') {
            try { entry.negotiated = JSON.parse(text).result?.protocolVersion; } catch { /* an error page */ }
          }
          log.push(entry);
          res.writeHead(upRes.statusCode, upRes.headers);
          res.end(text);
        });
      });
      up.on('error', (err) => { res.writeHead(502); res.end(String(err)); });
      up.end(body);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, log, url: `http://127.0.0.1:${server.address().port}/api/mcp` };
}

/** Starts the bridge over stdio with the key and connects an SDK client to it. */
async function connect(extraArgs) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bridge, recorder.url, '--transport', 'http-only', '--header', `Authorization:Bearer ${key}`, ...extraArgs],
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'finance-e2e-mcp-remote', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`${err.message}\nmcp-remote said:\n${stderr}`);
  }
  return client;
}

/** Lists the tools, records an expense and finds it again, through the bridge. */
async function useTools(client, description) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('create_expense') && names.includes('list_expenses'), names.join(', '));
  assert.ok(!names.includes('create_income'), 'a tool outside the key\'s scopes is listed');
  assert.equal(tools.find((t) => t.name === 'list_expenses').outputSchema?.type, 'object');
  assert.equal(tools.find((t) => t.name === 'create_expense').outputSchema, undefined, 'a write advertises no outputSchema');

  const created = await client.callTool({
    name: 'create_expense',
    arguments: { amount: '35.75', date: '2026-11-23', description, category: 'Food & Dining', payment_method: 'Cash' },
  });
  assert.ok(!created.isError, JSON.stringify(created));
  assert.equal(created.structuredContent.description, description);
  assert.equal(created.structuredContent.amount, 35.75);

  const listed = await client.callTool({ name: 'list_expenses', arguments: { search: description } });
  assert.equal(listed.structuredContent.pagination.total_items, 1);
  assert.equal(listed.structuredContent.items[0].id, created.structuredContent.id);

  // What the bridge wrote is in the database, as REST sees it.
  const res = await fetch(new URL(`/api/v1/expenses/${created.structuredContent.id}`, finance.baseURL), {
    headers: { Authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).data, created.structuredContent);
}

/** The posts the recorder saw since it was last asked, emptying its log. */
function takePosts() {
  const posts = recorder.log.filter((e) => e.httpMethod === 'POST');
  recorder.log.length = 0;
  return posts;
}

test('mcp-remote (default, legacy mode) passes the host\'s initialize through and stays on 2025-11-25', async () => {
  takePosts();
  const client = await connect([]);
  try {
    assert.equal(client.getServerVersion().name, 'finance');
    await useTools(client, 'Lunch via mcp-remote (legacy)');
  } finally {
    await client.close();
  }
  const posts = takePosts();
  const initializes = posts.filter((e) => e.method === 'initialize');
  // The bridge's own connection test and the host's handshake.
  assert.equal(initializes.length, 2, JSON.stringify(posts));
  for (const e of initializes) assert.equal(e.negotiated, '2025-11-25', JSON.stringify(e));
  assert.ok(!posts.some((e) => e.method === 'server/discover'), 'the legacy mode probes nothing');
  const calls = posts.filter((e) => e.method === 'tools/list' || e.method === 'tools/call');
  assert.equal(calls.length, 3, JSON.stringify(posts));
  for (const e of calls) {
    assert.equal(e.version, '2025-11-25', `${e.method} carried MCP-Protocol-Version ${e.version}`);
    assert.equal(e.status, 200);
  }
});

test('mcp-remote --protocol auto speaks 2026-07-28 with finance and never sends initialize', async () => {
  takePosts();
  const client = await connect(['--protocol', 'auto']);
  try {
    assert.equal(client.getServerVersion().name, 'finance');
    await useTools(client, 'Lunch via mcp-remote (auto)');
  } finally {
    await client.close();
  }
  const posts = takePosts();
  const methods = posts.map((e) => e.method);
  assert.ok(!methods.includes('initialize'), `the bridge fell back to initialize: ${methods.join(', ')}`);
  assert.ok(methods.includes('server/discover'), methods.join(', '));
  assert.equal(methods.filter((m) => m === 'tools/list' || m === 'tools/call').length, 3, methods.join(', '));
  for (const e of posts) {
    assert.equal(e.version, '2026-07-28', `${e.method} carried MCP-Protocol-Version ${e.version}`);
    assert.equal(e.status, 200, `${e.method} got ${e.status}`);
  }
});
