// Starts the real finance binary on a free loopback port with a fresh data
// directory, for the end-to-end tests of the OAuth flow and the web pages.
// With FINANCE_E2E_DATABASE=postgres each server gets a fresh Postgres
// database of its own instead of the data directory's SQLite file, on the
// server the libpq variables (PGHOST, PGPORT, PGUSER, …) name, as under
// pg_virtualenv; it is dropped when the server stops.
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const financeBin = resolve(process.env.FINANCE_BIN ?? join(import.meta.dirname, '..', 'bin', 'finance'));

const onPostgres = process.env.FINANCE_E2E_DATABASE === 'postgres';

/** Runs a Postgres client program (createdb, dropdb) and fails with its message. */
function pgTool(program, args) {
  const r = spawnSync(program, args, { encoding: 'utf8' });
  if (r.error) throw new Error(`${program}: ${r.error.message} (FINANCE_E2E_DATABASE=postgres needs the Postgres client programs)`);
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')}: ${r.stderr}`);
}

/**
 * Creates an empty Postgres database of its own and returns its name and URL
 * (the host, port, user and password come from the PG* variables), or null
 * when the tests run on SQLite.
 */
function freshDatabase() {
  if (!onPostgres) return null;
  const name = `finance_e2e_${process.pid}_${randomBytes(6).toString('hex')}`;
  pgTool('createdb', [name]);
  return { name, url: `postgres:///${name}` };
}

/**
 * Starts `finance serve` and resolves once it listens. The returned object
 * has the base URL, the first-run setup URL (printed while there is no user)
 * and stop(). Sign-in limits are raised: the tests sign in many times from
 * one address. extraArgs are more flags of serve.
 */
export async function startFinance(extraArgs = []) {
  const dataDir = mkdtempSync(join(tmpdir(), 'finance-e2e-'));
  const database = freshDatabase();
  // The flags every command on this server's data passes: the directory and,
  // on Postgres, the database.
  const where = ['--data-dir', dataDir, ...(database ? ['--database-url', database.url] : [])];
  const cleanUp = () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (database) pgTool('dropdb', ['--if-exists', database.name]);
  };
  const child = spawn(financeBin, [
    'serve', ...where, '--addr', '127.0.0.1:0', '--access-log=false',
    '--login-rate-limit', '600/min', '--login-rate-burst', '200', ...extraArgs,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  // Resolves once both lines are in the log. Reading whole lines matters: a
  // chunk of stderr may end in the middle of a URL. There is no timer: the
  // server either logs the lines or exits (a hang is bounded by the test
  // runner's timeout, see the Makefile).
  const ready = new Promise((resolveReady, reject) => {
    let baseURL, setupURL;
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      log += line + '\n';
      baseURL ??= /msg="finance listening" url=(\S+)/.exec(line)?.[1];
      setupURL ??= /(http:\/\/\S+\/setup\?code=\S+)/.exec(line)?.[1];
      if (baseURL && setupURL) resolveReady({ baseURL, setupURL });
    });
    child.on('error', reject);
    child.on('close', (code, signal) => reject(new Error(`finance exited (${code ?? signal}) before it was ready:\n${log}`)));
  });
  let baseURL, setupURL;
  try {
    ({ baseURL, setupURL } = await ready);
  } catch (err) {
    cleanUp();
    throw err;
  }
  return {
    baseURL,
    setupURL,
    dataDir,
    databaseURL: database?.url,
    log: () => log,
    /** Runs a CLI command against the same data directory (and database). */
    cli(args, input) {
      const r = spawnSync(financeBin, [...args, ...where], { input, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`finance ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      cleanUp();
    },
  };
}

/** A minimal cookie jar over fetch, for submitting the pages' forms as a browser would. */
export class CookieJar {
  cookies = new Map();

  async fetch(url, init = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=(0|-)/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Posts a form as application/x-www-form-urlencoded. */
  post(url, fields) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) {
      for (const item of [v].flat()) body.append(k, item);
    }
    return this.fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }
}

/** The value of the form token (csrf) of an HTML page. */
export function formToken(html) {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no form token in page:\n${html}`);
  return decodeEntities(m[1]);
}

/** The hidden inputs of a form, as name -> [values]. */
export function hiddenFields(html) {
  const out = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    (out[decodeEntities(m[1])] ??= []).push(decodeEntities(m[2]));
  }
  return out;
}

function decodeEntities(s) {
  return s.replace(/&#43;/g, '+').replace(/&#39;/g, "'").replace(/&#34;/g, '"').replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
