// The official MCP TypeScript SDK connects to the real binary with an API
// key (as an Authorization header, and as X-Service-API-Key), lists the
// tools its scopes allow, calls a read and a write tool, and sees a REST
// validation error come back as a tool error, also after listing the tools,
// when the SDK checks every result against the tool's outputSchema; and a
// retry with the same idempotency_key, the amount spelled otherwise, says it
// was replayed, while another amount under the key is IDEMPOTENCY_CONFLICT.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFinance } from './finance-server.mjs';

const email = 'mcp-apikey-e2e@example.com';

let finance;
let key;
before(async () => {
  finance = await startFinance();
  finance.cli(['users', 'create', '--email', email, '--name', 'E2E', '--plan', 'pro']);
  key = finance.cli(['keys', 'create', '--user', email, '--name', 'mcp e2e',
    '--scopes', 'finance:read,expenses:write,mcp:connect']).trim();
  assert.match(key, /^svk_/);
});
after(async () => finance?.stop());

/** Connects the SDK's client over Streamable HTTP with the given headers. */
async function connect(headers) {
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', finance.baseURL), {
    requestInit: { headers },
  });
  const client = new Client({ name: 'finance-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

test('the SDK connects with an API key and negotiates its newest version, 2025-11-25', async () => {
  const { client, transport } = await connect({ Authorization: `Bearer ${key}` });
  try {
    assert.equal(client.getServerVersion().name, 'finance');
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.equal(transport.sessionId, undefined, 'the endpoint is stateless: no session id');
    assert.match(client.getInstructions(), /Ask the user to confirm before calling write tools/);
    assert.match(client.getInstructions(), /^Today is \d{4}-\d{2}-\d{2} in Asia\/Manila; the reporting currency is PHP\. This API key holds the scopes /);
    assert.ok(client.getServerCapabilities().tools, 'tools capability');
  } finally {
    await client.close();
  }
});

test('tools/list shows the tools the key allows, with their hints', async () => {
  const { client } = await connect({ Authorization: `Bearer ${key}` });
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['list_expenses', 'get_expense_form_options', 'list_accounts', 'create_expense', 'delete_expense']) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    for (const name of ['create_income', 'adjust_account_balance', 'create_category']) {
      assert.ok(!names.includes(name), `${name} needs a scope the key lacks and is hidden`);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // A read says only that it is one; a write states destructiveHint,
    // whose MCP default is true.
    assert.deepEqual(byName.list_expenses.annotations, { readOnlyHint: true, openWorldHint: false });
    assert.equal(byName.delete_expense.annotations.destructiveHint, true);
    assert.equal(byName.create_expense.annotations.destructiveHint, false);
    // amount may be left out of a card purchase abroad: the card bills the
    // original converted at its date's rate plus its foreign fee.
    assert.deepEqual(byName.create_expense.inputSchema.required, ['date', 'description', 'category', 'payment_method']);
  } finally {
    await client.close();
  }
});

test('a read tool and a write tool act through the REST routes', async () => {
  const { client } = await connect({ 'X-Service-API-Key': key });
  try {
    const options = await client.callTool({ name: 'get_expense_form_options', arguments: {} });
    assert.equal(options.isError, undefined);
    assert.deepEqual(options.structuredContent.payment_methods, ['Cash', 'Account Debit', 'Credit Card']);
    const category = options.structuredContent.categories.find((c) => c.name === 'Food & Dining');
    assert.ok(category, 'the default expense categories exist');

    const created = await client.callTool({
      name: 'create_expense',
      arguments: { amount: '12.50', date: '2025-03-08', description: 'Lunch', category: category.name, payment_method: 'Cash' },
    });
    assert.ok(!created.isError, JSON.stringify(created.content));
    assert.equal(created.structuredContent.description, 'Lunch');
    assert.equal(created.structuredContent.amount, 12.5);
    assert.deepEqual(JSON.parse(created.content[0].text), created.structuredContent);

    const listed = await client.callTool({ name: 'list_expenses', arguments: { search: 'lunch' } });
    assert.equal(listed.structuredContent.pagination.total_items, 1);
    assert.equal(listed.structuredContent.items[0].id, created.structuredContent.id);

    // The same record over REST, with the same key.
    const res = await fetch(new URL(`/api/v1/expenses/${created.structuredContent.id}`, finance.baseURL), {
      headers: { Authorization: `Bearer ${key}` },
    });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).data, created.structuredContent);
  } finally {
    await client.close();
  }
});

test('a REST validation error comes back as a tool error', async () => {
  const { client } = await connect({ Authorization: `Bearer ${key}` });
  try {
    const result = await client.callTool({
      name: 'create_expense',
      arguments: { amount: -5, date: '2025-03-08', description: 'Refund?', category: 'Food & Dining', payment_method: 'Cash' },
    });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined, 'the error object is not structuredContent: it does not match the outputSchema');
    const problem = JSON.parse(result.content[0].text);
    assert.equal(problem.code, 'VALIDATION_ERROR');
    assert.equal(problem.message, 'Validation failed: amount must be greater than 0');
    assert.deepEqual(problem.fields, { amount: 'must be greater than 0' });

    // A tool the key's scopes do not allow cannot be called either: the
    // tool error names the scope it needs; a name that is no tool is not found.
    const hidden = await client.callTool({ name: 'create_income', arguments: { amount: 5, date: '2025-03-08', category: 'Salary' } });
    assert.equal(hidden.isError, true);
    const refused = JSON.parse(hidden.content[0].text);
    assert.equal(refused.code, 'FORBIDDEN');
    assert.match(refused.message, /^Tool create_income needs the scope income:write, which this API key does not hold\. Create an API key/);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /not found/);
  } finally {
    await client.close();
  }
});

// Every real agent lists the tools before calling one, and from then on the
// SDK checks each result's structuredContent against the tool's
// outputSchema (reads have one; a write answers the record its read tool
// describes): a refusal must still reach the agent as the REST message.
test('after tools/list, a refused call reaches the agent as the REST message and code', async () => {
  const { client } = await connect({ Authorization: `Bearer ${key}` });
  try {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.equal(byName.list_expenses.outputSchema?.type, 'object', 'list_expenses has an outputSchema, which the SDK now enforces');
    assert.equal(byName.get_expense.outputSchema?.type, 'object');
    assert.equal(byName.create_expense.outputSchema, undefined, 'a write advertises no outputSchema');

    const result = await client.callTool({
      name: 'create_expense',
      arguments: { amount: '2845.60', date: '2025-03-08', description: 'Meralco', category: 'Utilities', payment_method: 'Account Debit' },
    });
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent, undefined);
    assert.equal(result.content.length, 1);
    assert.equal(result.content[0].type, 'text');
    assert.match(result.content[0].text, /account_id is required when payment_method is Account Debit/);
    assert.match(result.content[0].text, /VALIDATION_ERROR/);
    const problem = JSON.parse(result.content[0].text);
    assert.equal(problem.code, 'VALIDATION_ERROR');
    assert.equal(problem.fields.account_id, 'is required when payment_method is Account Debit');

    // A read with an outputSchema, refused: the SDK passes the error through.
    const badList = await client.callTool({ name: 'list_expenses', arguments: { dateFrom: '2025-13-01' } });
    assert.equal(badList.isError, true, JSON.stringify(badList));
    assert.equal(badList.structuredContent, undefined);
    assert.equal(JSON.parse(badList.content[0].text).code, 'VALIDATION_ERROR');
    assert.ok(JSON.parse(badList.content[0].text).fields.dateFrom, badList.content[0].text);

    // A missing record is a tool error too, and a successful call after it
    // still passes the SDK's check.
    const missing = await client.callTool({ name: 'get_expense', arguments: { id: '01956a3e-7d2c-7b4e-9a1f-3c5d7e9f1a2b' } });
    assert.equal(missing.isError, true);
    assert.equal(JSON.parse(missing.content[0].text).code, 'NOT_FOUND');
    const listed = await client.callTool({ name: 'list_expenses', arguments: { search: 'meralco' } });
    assert.equal(listed.isError, undefined);
    assert.equal(listed.structuredContent.pagination.total_items, 0, 'the refused call wrote nothing');
  } finally {
    await client.close();
  }
});

test('a retry with the same idempotency_key replays however the amount is spelled; another amount is a conflict', async () => {
  const { client } = await connect({ Authorization: `Bearer ${key}` });
  try {
    await client.listTools(); // from here on the SDK checks results against the outputSchema
    const args = { date: '2025-03-09', description: 'Idempotent coffee', category: 'Food & Dining', payment_method: 'Cash',
      idempotency_key: 'coffee-0309' };
    const first = await client.callTool({ name: 'create_expense', arguments: { ...args, amount: 12.5 } });
    assert.ok(!first.isError, JSON.stringify(first.content));
    assert.equal(first.content.length, 1, 'the first call is not a replay');

    const again = await client.callTool({ name: 'create_expense', arguments: { ...args, amount: '12.50' } });
    assert.ok(!again.isError, JSON.stringify(again.content));
    assert.deepEqual(again.structuredContent, first.structuredContent);
    assert.equal(again.content[0].text, first.content[0].text);
    assert.equal(again.content.length, 2);
    assert.match(again.content[1].text, /^Replayed: .*nothing was written again\.$/);

    // The same key over REST, the amount spelled a third way: the same answer, marked.
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'coffee-0309' };
    const { idempotency_key: _, ...body } = args;
    const rest = await fetch(new URL('/api/v1/expenses', finance.baseURL), {
      method: 'POST', headers, body: JSON.stringify({ ...body, amount: '12.500' }),
    });
    assert.equal(rest.status, 201);
    assert.equal(rest.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual((await rest.json()).data, first.structuredContent);

    const other = await client.callTool({ name: 'create_expense', arguments: { ...args, amount: 13 } });
    assert.equal(other.isError, true);
    const problem = JSON.parse(other.content[0].text);
    assert.equal(problem.code, 'IDEMPOTENCY_CONFLICT');
    assert.match(problem.message, /Read the current state first/);
    assert.doesNotMatch(problem.message, /new key/i);

    const listed = await client.callTool({ name: 'list_expenses', arguments: { search: 'idempotent coffee' } });
    assert.equal(listed.structuredContent.pagination.total_items, 1, 'one expense for the call, its retries and the refusal');
  } finally {
    await client.close();
  }
});

test('without a key the SDK gets 401 and the OAuth challenge', async () => {
  const res = await fetch(new URL('/api/mcp', finance.baseURL), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate'),
    new RegExp(`resource_metadata="${finance.baseURL}/\\.well-known/oauth-protected-resource"`));
});
