// REST API benchmark (issue 5): GET /api/v1/events/?limit=50 on an endpoint with
// 1,000,000 events, first page and a page deep in the history, on SQLite and PostgreSQL.
// Target: p99 ≤ 20 ms for both pages — keyset pagination costs the same at any depth.
//
//   npx tsx bench/api.ts   (or npm run bench -- api; BENCH_EVENTS, BENCH_SECONDS and
//                           BENCH_CONNECTIONS change the defaults)
//
// Loopback only; it builds its own databases, runs a fixed time and removes them.
import Fastify from 'fastify';
import { sql } from 'kysely';
import { registerApi } from '../src/api/index.js';
import { newApiKey } from '../src/api/keys.js';
import { isoMicros, systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { installErrorHandler } from '../src/http/errors.js';
import { replaceApiKey } from '../src/store/apiKeys.js';
import { insertBulkEvents } from '../src/store/bulkEvents.js';
import { type Dialect, type Store, openStore } from '../src/store/db.js';
import { createEndpoint } from '../src/store/endpoints.js';
import { findEvent } from '../src/store/events.js';
import { migrate } from '../src/store/migrations/index.js';
import { createUser } from '../src/store/users.js';
import { type LoadResult, load, table } from './lib/load.js';
import { dropPostgres, dropSqlite, postgresUrl, sqliteUrl } from './lib/processes.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Events sharing each received_at, so the deep page's cursor needs its tie-breaker. */
const SAME_TIME = 4;

interface Row {
  dialect: Dialect;
  page: string;
  result: LoadResult;
}

interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function createDatabase(dialect: Dialect): Promise<BenchDatabase | null> {
  if (dialect === 'sqlite') {
    const url = sqliteUrl();
    return { url, drop: async () => dropSqlite(url) };
  }
  const url = await postgresUrl();
  if (!url) {
    console.log('!!! no PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432: PostgreSQL skipped');
    return null;
  }
  return { url, drop: () => dropPostgres(url) };
}

/** One user, one endpoint with EVENTS events, and an API key for them. */
async function seed(store: Store) {
  const now = systemClock.nowMicros();
  const user = (await createUser(store, {
    email: 'bench@example.com',
    passwordHash: 'x',
    plan: 'business',
    now,
  }))!;
  const endpoint = await createEndpoint(store, {
    userId: user.id,
    name: 'bench',
    token: 'bench',
    now,
  });
  const { key, hash, prefix } = newApiKey();
  await replaceApiKey(store, { userId: user.id, prefix, keyHash: hash, now });
  const started = performance.now();
  await insertBulkEvents(store, {
    endpointId: endpoint.id,
    userId: user.id,
    count: EVENTS,
    oldestAt: now - EVENTS * 1000,
    stepMicros: 1000 * SAME_TIME,
    sameTime: SAME_TIME,
  });
  await sql`analyze`.execute(store.db);
  const seconds = (performance.now() - started) / 1000;
  return { user, endpoint, key, seconds };
}

async function measure(url: string, key: string): Promise<LoadResult> {
  // autocannon runs in a process of its own, not on the server's event loop.
  const options = {
    url,
    method: 'GET',
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${key}` },
  };
  await load({ ...options, seconds: WARMUP_SECONDS }); // JIT, caches, connection pool
  return load({ ...options, seconds: SECONDS });
}

async function benchDialect(dialect: Dialect): Promise<Row[]> {
  const database = await createDatabase(dialect);
  if (!database) return [];
  const store = openStore(database.url);
  const app = Fastify();
  try {
    await migrate(store);
    const { user, endpoint, key, seconds } = await seed(store);
    console.log(
      `${dialect}: ${EVENTS.toLocaleString('en')} events stored in ${seconds.toFixed(1)} s`,
    );

    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
    installErrorHandler(app);
    // The real sliding log runs on every request; its window is shrunk to 1 ms so the
    // benchmark measures the API rather than 429s, while each key's log still holds up
    // to 120 entries, as in production.
    await registerApi(
      app,
      { store, clock: systemClock, config },
      { rateLimit: { max: 120, windowMicros: 1000 } },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    config.baseUrl = base;

    // A cursor 99 % of the way into the history, in the middle of a group of equal times.
    const newestId = (
      await store.db
        .selectFrom('events')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('endpoint_id', '=', endpoint.id)
        .executeTakeFirstOrThrow()
    ).id as number;
    const deep = (await findEvent(store, user.id, newestId - Math.floor(EVENTS * 0.99) - 1))!;
    const pages: Array<[string, string]> = [
      ['first page', `/api/v1/events/?endpoint=${endpoint.id}&limit=50`],
      [
        'page at 99 % depth',
        `/api/v1/events/?endpoint=${endpoint.id}&limit=50&before=${encodeURIComponent(isoMicros(deep.received_at))}&before_id=${deep.id}`,
      ],
    ];
    const rows: Row[] = [];
    for (const [page, path] of pages) {
      const check = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await check.json()) as { results: unknown[]; next: string | null };
      if (check.status !== 200 || body.results.length !== 50 || body.next === null) {
        throw new Error(`${page}: unexpected answer ${check.status}`);
      }
      rows.push({ dialect, page, result: await measure(`${base}${path}`, key) });
    }
    return rows;
  } finally {
    await app.close();
    await store.close();
    await database.drop();
  }
}

export async function benchApi(): Promise<string> {
  const rows = [...(await benchDialect('sqlite')), ...(await benchDialect('postgres'))];
  const firstPage = (dialect: Dialect) =>
    rows.find((r) => r.dialect === dialect && r.page === 'first page')!.result;
  const lines = table(
    rows.map(({ dialect, page, result }) => ({
      database: dialect,
      page,
      'req/s': Math.round(result.requestsPerSecond),
      'p50 ms': result.p50,
      'p99 ms': result.p99,
      'req/s vs first page': (
        result.requestsPerSecond / firstPage(dialect).requestsPerSecond
      ).toFixed(2),
      '200s': result.ok,
      'other/errors': result.non2xx + result.errors,
      'p99 ≤ 20 ms': result.p99 <= 20 ? 'yes' : 'NO',
    })),
  );
  return [
    `REST API: GET /api/v1/events/?endpoint=…&limit=50 on one endpoint with ${EVENTS.toLocaleString('en')} events, ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up`,
    lines,
    'Target: p99 ≤ 20 ms on both pages (the deep page costs what the first does: keyset paging, no OFFSET, no COUNT).',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchApi());
}
