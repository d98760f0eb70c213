// Capture throughput: (a) a bare Fastify route that stores nothing, the ceiling on this
// hardware; (b) Hookwatch on SQLite with synchronous=FULL; (c) Hookwatch on PostgreSQL;
// (d) Stripe verification off versus on over the same signed requests, alternating in
// one SQLite server.
// 50 connections, 10 s after a 3 s warm-up, 1 KiB JSON bodies; the load generator runs
// in its own process. Every 200 must be a committed row.
import Stripe from 'stripe';
import { fileURLToPath } from 'node:url';
import { openStore } from '../src/store/db.js';
import { countEvents } from '../src/store/events.js';
import { jsonBody, load, table, type LoadResult } from './lib/load.js';
import {
  type Child,
  cpuSeconds,
  dropPostgres,
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

interface Row {
  name: string;
  result: LoadResult;
  stored: number | null;
  /** Server CPU (all threads) per answered request: steadier than req/s on a shared machine. */
  cpuMicros: number;
}

async function measure(
  server: Child,
  url: string,
  headers: Record<string, string> = {},
  afterWarmup: () => Promise<void> = async () => {},
): Promise<{ result: LoadResult; cpuMicros: number }> {
  const options = {
    url,
    connections: CONNECTIONS,
    body: BODY,
    headers: { 'content-type': 'application/json', ...headers },
  };
  await load({ ...options, seconds: WARMUP_SECONDS });
  await afterWarmup();
  const cpuBefore = cpuSeconds(server.child);
  const result = await load({ ...options, seconds: SECONDS });
  const cpuMicros = ((cpuSeconds(server.child) - cpuBefore) * 1e6) / Math.max(1, result.ok);
  return { result, cpuMicros };
}

async function hookwatchCase(
  name: string,
  databaseUrl: string,
  options: { patch?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<Row> {
  const service = await startHookwatch({ DATABASE_URL: databaseUrl });
  try {
    const endpoint = await prepareEndpoint(service.url, options.patch);
    const store = openStore(databaseUrl);
    try {
      let before = 0;
      const { result, cpuMicros } = await measure(
        service,
        endpoint.captureUrl,
        options.headers,
        async () => {
          before = await countEvents(store, endpoint.id);
        },
      );
      await service.stop();
      return { name, result, cpuMicros, stored: (await countEvents(store, endpoint.id)) - before };
    } finally {
      await store.close();
    }
  } finally {
    await service.stop();
  }
}

const AB_ROUNDS = 3;
const AB_SECONDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * (d) Stripe verification off versus on, over the very same signed requests, in one
 * server process whose endpoint is switched between rounds (off, on, off, on, …): the
 * same warm process and database, so the difference is the verification alone.
 */
async function verificationAB(secret: string, stripeHeader: string): Promise<string> {
  const databaseUrl = sqliteUrl();
  const service = await startHookwatch({ DATABASE_URL: databaseUrl });
  try {
    const endpoint = await prepareEndpoint(service.url, { signing_secret: secret });
    const setScheme = async (scheme: string | null) => {
      const response = await fetch(`${service.url}/app/api/endpoints/${endpoint.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', cookie: endpoint.cookie },
        body: JSON.stringify({ verify_scheme: scheme }),
      });
      if (response.status !== 200) throw new Error(`PATCH failed: ${response.status}`);
    };
    const options = {
      url: endpoint.captureUrl,
      connections: CONNECTIONS,
      body: BODY,
      headers: { 'content-type': 'application/json', 'Stripe-Signature': stripeHeader },
    };
    await load({ ...options, seconds: WARMUP_SECONDS });
    const off: Array<{ rps: number; cpu: number }> = [];
    const on: Array<{ rps: number; cpu: number }> = [];
    for (let round = 0; round < AB_ROUNDS; round++) {
      for (const [scheme, into] of [
        [null, off],
        ['stripe', on],
      ] as const) {
        await setScheme(scheme);
        const cpuBefore = cpuSeconds(service.child);
        const result = await load({ ...options, seconds: AB_SECONDS });
        into.push({
          rps: result.requestsPerSecond,
          cpu: ((cpuSeconds(service.child) - cpuBefore) * 1e6) / Math.max(1, result.ok),
        });
      }
    }
    const store = openStore(databaseUrl);
    const labels = await store.db
      .selectFrom('events')
      .select(['signature', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('signature')
      .execute();
    await store.close();
    const rps = (xs: typeof off) => median(xs.map((x) => x.rps));
    const cpu = (xs: typeof off) => median(xs.map((x) => x.cpu));
    const rows = table([
      ...off.map((x, i) => ({
        round: i + 1,
        'off req/s': Math.round(x.rps),
        'on req/s': Math.round(on[i]!.rps),
        'off CPU µs/req': x.cpu.toFixed(1),
        'on CPU µs/req': on[i]!.cpu.toFixed(1),
      })),
      {
        round: 'median',
        'off req/s': Math.round(rps(off)),
        'on req/s': Math.round(rps(on)),
        'off CPU µs/req': cpu(off).toFixed(1),
        'on CPU µs/req': cpu(on).toFixed(1),
      },
    ]);
    const invalid = labels.find((l) => l.signature === 'invalid')?.n ?? 0;
    return [
      `(d) Stripe verification off/on, same signed requests, same SQLite server, ${AB_ROUNDS} alternating rounds of ${AB_SECONDS} s:`,
      rows,
      `Verification cost (medians): ${((1 - rps(on) / rps(off)) * 100).toFixed(1)} % of capture throughput, ` +
        `${((cpu(on) / cpu(off) - 1) * 100).toFixed(1)} % more server CPU per capture (target < 10 %). ` +
        `Requests labelled invalid while verifying: ${invalid}.`,
    ].join('\n');
  } finally {
    await service.stop();
  }
}

export async function benchCapture(): Promise<string> {
  const rows: Row[] = [];
  const bare = await startScript(fileURLToPath(new URL('./lib/bareFastify.ts', import.meta.url)));
  try {
    rows.push({
      name: '(a) bare Fastify, no storage',
      ...(await measure(bare, `${bare.url}/i/x`)),
      stored: null,
    });
  } finally {
    await bare.stop();
  }
  rows.push(await hookwatchCase('(b) capture, SQLite FULL', sqliteUrl()));
  const pgUrl = await postgresUrl();
  if (pgUrl) {
    try {
      rows.push(await hookwatchCase('(c) capture, PostgreSQL', pgUrl));
    } finally {
      await dropPostgres(pgUrl);
    }
  } else {
    console.log('!!! no PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432: case (c) skipped');
  }
  const secret = 'whsec_bench_secret';
  const stripeHeader = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({
    payload: BODY,
    secret,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const verification = await verificationAB(secret, stripeHeader);

  const a = rows[0]!.result.requestsPerSecond;
  const lines = table(
    rows.map((r) => ({
      case: r.name,
      'req/s': Math.round(r.result.requestsPerSecond),
      'p50 ms': r.result.p50,
      'p99 ms': r.result.p99,
      'vs (a)': (r.result.requestsPerSecond / a).toFixed(2),
      'server CPU µs/req': r.cpuMicros.toFixed(1),
      '200s': r.result.ok,
      'other/errors': r.result.non2xx + r.result.errors,
      stored: r.stored ?? '-',
      // A request in flight when the load stops may commit without its 200 being counted.
      'every 200 stored':
        r.stored === null
          ? '-'
          : r.stored >= r.result.ok && r.stored - r.result.ok <= CONNECTIONS
            ? 'yes'
            : 'NO',
    })),
  );
  return [
    `Capture: ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, 1 KiB JSON bodies`,
    lines,
    `Targets: b/a ≥ 0.6, c/a ≥ 0.35, p99 ≤ 30 ms.`,
    verification,
    'Server CPU counts the Hookwatch process (all its threads), not the PostgreSQL server.',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchCapture());
}
