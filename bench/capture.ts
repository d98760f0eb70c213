// Capture throughput: (a) a bare Fastify route that stores nothing, the ceiling on this
// hardware; (b) Hookwatch on SQLite with synchronous=FULL; (c) Hookwatch on PostgreSQL;
// (d) Hookwatch on SQLite with Stripe verification, against (d0) the same signed requests
// with verification off, in the same run.
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
  // Verification on versus off over the very same signed requests, so the difference is
  // the verification alone, not the extra header's bytes.
  const signed = { 'Stripe-Signature': stripeHeader };
  rows.push(
    await hookwatchCase('(d0) capture, SQLite FULL, signed, not verified', sqliteUrl(), {
      headers: signed,
    }),
    await hookwatchCase('(d) capture, SQLite FULL, Stripe verified', sqliteUrl(), {
      patch: { verify_scheme: 'stripe', signing_secret: secret },
      headers: signed,
    }),
  );

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
  const rowOff = rows.find((r) => r.name.startsWith('(d0)'))!;
  const rowOn = rows.find((r) => r.name.startsWith('(d)'))!;
  const throughputCost = (
    (1 - rowOn.result.requestsPerSecond / rowOff.result.requestsPerSecond) *
    100
  ).toFixed(1);
  const cpuCost = ((rowOn.cpuMicros / rowOff.cpuMicros - 1) * 100).toFixed(1);
  return [
    `Capture: ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, 1 KiB JSON bodies`,
    lines,
    `Targets: b/a ≥ 0.6, c/a ≥ 0.35, p99 ≤ 30 ms.`,
    `Stripe verification, (d) against (d0): ${throughputCost} % of capture throughput, ${cpuCost} % more server CPU per capture (target < 10 %).`,
    'Server CPU counts the Hookwatch process (all its threads), not the PostgreSQL server.',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchCapture());
}
