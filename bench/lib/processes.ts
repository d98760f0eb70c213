import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sqlitePath } from '../../src/store/db.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
export const PG_ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Child {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function ticksOf(stat: string): number {
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU seconds (user + system, all threads) a process has used so far, from /proc. */
export function cpuSeconds(child: ChildProcess): number {
  return ticksOf(readFileSync(`/proc/${child.pid}/stat`, 'utf8')) / 100; // USER_HZ is 100
}

/**
 * CPU seconds used so far by every local PostgreSQL server process (postmaster, backends,
 * WAL writer, checkpointer). Backends come and go, so compare two readings taken while
 * the same connections stay open.
 */
export function postgresCpuSeconds(): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.includes('(postgres)')) ticks += ticksOf(stat);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks / 100;
}

function waitFor(child: ChildProcess, match: (line: string) => string | null): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        const found = match(line);
        if (found) resolve(found);
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was up`)));
  });
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/**
 * Node's own flags in `npm start` (package.json), so the benchmarks run the service as a
 * user starts it; `node dist/cli.js serve` by hand would leave them out.
 */
function startFlags(): string[] {
  const packageJson = fileURLToPath(new URL('../../package.json', import.meta.url));
  const { scripts } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.split(/\s+/);
  if (words[0] !== 'node' || !words.includes('dist/cli.js')) {
    throw new Error(`npm start is not "node … dist/cli.js serve": ${scripts.start}`);
  }
  return words.slice(1, words.indexOf('dist/cli.js'));
}

export async function startHookwatch(env: Record<string, string>): Promise<Child> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
  const child = spawn(process.execPath, [...startFlags(), CLI, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      LOG_LEVEL: 'info',
      HOOKWATCH_ALLOW_PRIVATE_TARGETS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await waitFor(child, (line) => {
    try {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      return entry.msg?.startsWith('Hookwatch is up') && entry.url ? entry.url : null;
    } catch {
      return null;
    }
  });
  return { url, child, stop: stopper(child) };
}

export async function startScript(path: string, env: Record<string, string> = {}): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', path], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await waitFor(child, (line) => {
    try {
      const entry = JSON.parse(line) as { port?: number };
      return entry.port ? String(entry.port) : null;
    } catch {
      return null;
    }
  });
  return { url: `http://127.0.0.1:${port}`, child, stop: stopper(child) };
}

export function sqliteUrl(): string {
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'hookwatch-bench-')), 'bench.db')}`;
}

/** Removes what `sqliteUrl` made: a capture run leaves gigabytes behind otherwise. */
export function dropSqlite(url: string): void {
  rmSync(dirname(sqlitePath(url)), { recursive: true, force: true });
}

/** A fresh PostgreSQL database; null when no server answers. */
export async function postgresUrl(): Promise<string | null> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `hw_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropPostgres(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}

/** Signs up a user and creates an endpoint through the dashboard API; returns its capture URL. */
export async function prepareEndpoint(
  baseUrl: string,
  patch: Record<string, unknown> = {},
): Promise<{ captureUrl: string; id: number; cookie: string }> {
  const signup = await fetch(`${baseUrl}/app/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-${randomBytes(4).toString('hex')}@example.com`,
      password: 'bench password',
    }),
  });
  const cookie = signup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const created = (await (
    await fetch(`${baseUrl}/app/api/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'bench' }),
    })
  ).json()) as { id: number; url: string };
  if (Object.keys(patch).length > 0) {
    await fetch(`${baseUrl}/app/api/endpoints/${created.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify(patch),
    });
  }
  return { captureUrl: created.url, id: created.id, cookie };
}

export async function eventsTotal(
  baseUrl: string,
  endpointId: number,
  cookie: string,
): Promise<number> {
  const response = await fetch(`${baseUrl}/app/api/endpoints/${endpointId}`, {
    headers: { cookie },
  });
  return ((await response.json()) as { events_total: number }).events_total;
}
