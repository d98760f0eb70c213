// Capture throughput: (a) a bare Fastify route that stores nothing, the ceiling on this
// hardware; (r) the reference for SQLite: bare Fastify and better-sqlite3 with group
// commit and synchronous=FULL into one plain table, what bare libraries reach here;
// (b) Hookwatch on SQLite with synchronous=FULL; (c) Hookwatch on PostgreSQL;
// bench/verification.ts measures the cost of signature verification.
// 50 connections, 1 KiB JSON bodies, the load generator in its own process. All the
// servers run at once and are measured in turns — (a), (b), (c), (a), (b), (c), … — for
// BENCH_ROUNDS rounds (5) of BENCH_SECONDS (10) after a 3 s warm-up each; a ratio is the
// median of the per-round ratios, so a slow spell of this shared machine hits the baseline
// and the case alike. Every 200 must be a committed row.
import { fileURLToPath } from 'node:url';
import { openStore } from '../src/store/db.js';
import { countEvents } from '../src/store/events.js';
import { jsonBody, load, median, table, type LoadResult } from './lib/load.js';
import {
  type Child,
  cpuSeconds,
  dropPostgres,
  dropSqlite,
  postgresCpuSeconds,
  postgresUrl,
  prepareEndpoint,
  sqliteUrl,
  startHookwatch,
  startScript,
} from './lib/processes.js';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
const BODY = jsonBody(1024);

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

interface Round {
  result: LoadResult;
  /** Server CPU (all threads) per answered request: steadier than req/s on a shared machine. */
  cpuMicros: number;
  /** PostgreSQL server CPU (all its processes) per answered request. */
  postgresCpuMicros: number;
}

interface Case {
  name: string;
  server: Child;
  url: string;
  /** Where Hookwatch stores the events, to check them afterwards; null for (a). */
  databaseUrl: string | null;
  endpointId: number;
  rounds: Round[];
  /** 200s answered over every load run, warm-up included. */
  answered: number;
}

async function measure(target: Case, seconds: number): Promise<Round> {
  const cpuBefore = cpuSeconds(target.server.child);
  const postgresBefore = postgresCpuSeconds();
  const result = await load({
    url: target.url,
    connections: CONNECTIONS,
    seconds,
    body: BODY,
    headers: { 'content-type': 'application/json' },
  });
  target.answered += result.ok;
  const perRequest = (cpu: number) => (cpu * 1e6) / Math.max(1, result.ok);
  return {
    result,
    cpuMicros: perRequest(cpuSeconds(target.server.child) - cpuBefore),
    postgresCpuMicros: perRequest(postgresCpuSeconds() - postgresBefore),
  };
}

async function hookwatchCase(name: string, databaseUrl: string): Promise<Case> {
  const server = await startHookwatch({ DATABASE_URL: databaseUrl });
  const endpoint = await prepareEndpoint(server.url);
  return {
    name,
    server,
    url: endpoint.captureUrl,
    databaseUrl,
    endpointId: endpoint.id,
    rounds: [],
    answered: 0,
  };
}

/** A server of bench/lib that takes captures at `/i/<token>`; it stores nothing we check. */
function scriptCase(name: string, server: Child): Case {
  return {
    name,
    server,
    url: `${server.url}/i/x`,
    databaseUrl: null,
    endpointId: 0,
    rounds: [],
    answered: 0,
  };
}

/** The mean of the service's capture batch-size histogram, read from /metrics. */
async function meanBatchSize(serviceUrl: string): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return read('hookwatch_capture_batch_size_sum') / read('hookwatch_capture_batch_size_count');
}

/** Stops a Hookwatch case (flushing its last batch) and says whether every 200 is a row. */
async function storedCheck(target: Case): Promise<{ stored: number; ok: boolean }> {
  await target.server.stop();
  const store = openStore(target.databaseUrl!);
  try {
    const stored = await countEvents(store, target.endpointId);
    // A request in flight when a load run stops may commit without its 200 being counted.
    const slack = CONNECTIONS * (ROUNDS + 1);
    return { stored, ok: stored >= target.answered && stored - target.answered <= slack };
  } finally {
    await store.close();
  }
}

function captureTable(cases: Case[], batches: Map<Case, number>, checks: Map<Case, string>) {
  const bare = cases[0]!;
  return table(
    cases.map((c) => {
      const ratios = c.rounds.map(
        (r, i) => r.result.requestsPerSecond / bare.rounds[i]!.result.requestsPerSecond,
      );
      return {
        case: c.name,
        'req/s': Math.round(median(c.rounds.map((r) => r.result.requestsPerSecond))),
        'p50 ms': median(c.rounds.map((r) => r.result.p50)),
        'worst p99 ms': Math.max(...c.rounds.map((r) => r.result.p99)),
        'vs (a)': median(ratios).toFixed(2),
        'per round': ratios.map((x) => x.toFixed(2)).join(' '),
        'server CPU µs/req': median(c.rounds.map((r) => r.cpuMicros)).toFixed(1),
        'PostgreSQL CPU µs/req': c.databaseUrl?.startsWith('postgres')
          ? median(c.rounds.map((r) => r.postgresCpuMicros)).toFixed(1)
          : '-',
        'mean batch': batches.get(c)?.toFixed(1) ?? '-',
        errors: c.rounds.reduce((n, r) => n + r.result.non2xx + r.result.errors, 0),
        'every 200 stored': checks.get(c) ?? '-',
      };
    }),
  );
}

export async function benchCapture(): Promise<string> {
  const cases: Case[] = [];
  let pgUrl: string | null = null;
  const sqlite = sqliteUrl();
  try {
    const bare = await startScript(fileURLToPath(new URL('./lib/bareFastify.ts', import.meta.url)));
    cases.push(scriptCase('(a) bare Fastify, no storage', bare));
    const reference = await startScript(
      fileURLToPath(new URL('./lib/sqliteGroupCommit.ts', import.meta.url)),
    );
    cases.push(scriptCase('(r) reference: bare libraries, SQLite FULL', reference));
    cases.push(await hookwatchCase('(b) capture, SQLite FULL', sqlite));
    pgUrl = await postgresUrl();
    if (pgUrl) cases.push(await hookwatchCase('(c) capture, PostgreSQL', pgUrl));
    else console.log('!!! no PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432: case (c) skipped');

    for (const c of cases) await measure(c, WARMUP_SECONDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) c.rounds.push(await measure(c, SECONDS));
    }
    const batches = new Map<Case, number>();
    const checks = new Map<Case, string>();
    for (const c of cases.filter((x) => x.databaseUrl !== null)) {
      batches.set(c, await meanBatchSize(c.server.url));
      const { stored, ok } = await storedCheck(c);
      checks.set(c, `${ok ? 'yes' : 'NO'} (${stored} rows, ${c.answered} 200s)`);
    }

    return [
      `Capture: ${CONNECTIONS} connections, 1 KiB JSON bodies, ${ROUNDS} alternating rounds of ${SECONDS} s per case`,
      captureTable(cases, batches, checks),
      `Targets: b/a ≥ 0.6, c/a ≥ 0.35, p99 ≤ 30 ms. (r) is no target: it shows what group commit ` +
        `with synchronous=FULL reaches on this hardware with bare libraries and the least a capture must store.`,
      'Server CPU counts the Hookwatch process (all its threads); PostgreSQL CPU counts every local PostgreSQL process.',
    ].join('\n');
  } finally {
    for (const c of cases) await c.server.stop();
    dropSqlite(sqlite);
    if (pgUrl) await dropPostgres(pgUrl);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchCapture());
}
