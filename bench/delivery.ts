// Delivery: (1) capture → first attempt received at a local receiver, latency p50/p99 at
// 500 captures/s; (2) sustained deliveries/s draining a backlog to one local receiver,
// against (0) the receiver's own ceiling: a bare undici client posting to it at the same
// concurrency. SQLite and PostgreSQL; Hookwatch runs as `node dist/cli.js serve` in its own
// process, the receiver and the load here. Loopback only; bounded (≈1–2 min); stops by itself.
//   npx tsx bench/delivery.ts          (needs npm run build:server first)
import { createServer, type Server } from 'node:http';
import { Pool } from 'undici';
import { table } from './lib/load.js';
import {
  type Child,
  dropPostgres,
  dropSqlite,
  postgresUrl,
  prepareEndpoint,
  sqliteUrl,
  startHookwatch,
} from './lib/processes.js';

const RATE = 500; // captures per second in the latency run
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 20_000);
const CONCURRENCY = 64; // DELIVERY_CONCURRENCY's default
const BODY = JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1', pad: 'x'.repeat(900) } });

interface Receiver {
  url: string;
  server: Server;
  /** Arrival time (performance.now()) per `seq` query parameter. */
  arrivals: Map<number, number>;
  /** Requests per X-Hookwatch-Event-Id. */
  perEvent: Map<string, number>;
  total: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    server: createServer((req, res) => {
      const seq = /[?&]seq=(\d+)/.exec(req.url ?? '')?.[1];
      req.resume();
      req.on('end', () => {
        const now = performance.now();
        receiver.total += 1;
        if (seq !== undefined && !receiver.arrivals.has(Number(seq))) {
          receiver.arrivals.set(Number(seq), now);
        }
        const id = req.headers['x-hookwatch-event-id'];
        if (typeof id === 'string') receiver.perEvent.set(id, (receiver.perEvent.get(id) ?? 0) + 1);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    }),
    arrivals: new Map(),
    perEvent: new Map(),
    total: 0,
    close: () => new Promise((resolve) => receiver.server.close(() => resolve())),
  };
  receiver.server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const address = receiver.server.address();
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return receiver;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

async function patch(baseUrl: string, id: number, cookie: string, body: unknown): Promise<void> {
  const response = await fetch(`${baseUrl}/app/api/endpoints/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`PATCH failed: ${response.status}`);
}

function captureClient(captureUrl: string): { pool: Pool; send(path: string): Promise<boolean> } {
  const url = new URL(captureUrl);
  const pool = new Pool(url.origin, { connections: 64, pipelining: 1 });
  return {
    pool,
    async send(query: string) {
      try {
        const { statusCode, body } = await pool.request({
          method: 'POST',
          path: `${url.pathname}${query}`,
          headers: { 'content-type': 'application/json' },
          body: BODY,
        });
        await body.dump();
        return statusCode === 200;
      } catch {
        return false;
      }
    },
  };
}

/** (1) Paced captures; latency from sending the capture to the receiver seeing the attempt. */
async function latencyRun(service: Child, receiver: Receiver) {
  receiver.arrivals.clear();
  const endpoint = await prepareEndpoint(service.url);
  await patch(service.url, endpoint.id, endpoint.cookie, { forwarding: receiver.url });
  const client = captureClient(endpoint.captureUrl);
  const sentAt = new Map<number, number>();
  const answered: number[] = [];
  const total = RATE * (WARMUP_SECONDS + LATENCY_SECONDS);
  const warmup = RATE * WARMUP_SECONDS;
  let failed = 0;
  const started = performance.now();
  let next = 0;
  const inflight: Array<Promise<void>> = [];
  while (next < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
    while (next < due) {
      const seq = next++;
      sentAt.set(seq, performance.now());
      inflight.push(
        client.send(`?seq=${seq}`).then((ok) => {
          if (!ok) failed += 1;
          if (seq >= warmup) answered.push(performance.now() - sentAt.get(seq)!);
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inflight);
  await until(() => receiver.arrivals.size >= total - failed, 15_000);
  await client.pool.close();
  const latencies: number[] = [];
  for (let seq = warmup; seq < total; seq += 1) {
    const arrived = receiver.arrivals.get(seq);
    if (arrived !== undefined) latencies.push(arrived - sentAt.get(seq)!);
  }
  latencies.sort((a, b) => a - b);
  answered.sort((a, b) => a - b);
  return {
    captureP50: percentile(answered, 50),
    measured: total - warmup,
    delivered: latencies.length,
    failed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** (2) A paused endpoint collects a backlog; on resume, how fast it drains. */
async function throughputRun(service: Child, receiver: Receiver) {
  const endpoint = await prepareEndpoint(service.url);
  await patch(service.url, endpoint.id, endpoint.cookie, {
    forwarding: `${receiver.url}/drain`,
    is_active: false,
  });
  const client = captureClient(endpoint.captureUrl);
  let sent = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (sent < BACKLOG) {
        sent += 1;
        if (!(await client.send(''))) failed += 1;
      }
    }),
  );
  await client.pool.close();
  const expected = BACKLOG - failed;
  progress(`captured ${expected} (${failed} failed); resuming`);
  receiver.perEvent.clear();
  const before = receiver.total;
  const started = performance.now();
  await patch(service.url, endpoint.id, endpoint.cookie, { is_active: true });
  const complete = await until(() => receiver.perEvent.size >= expected, 120_000);
  const seconds = (performance.now() - started) / 1000;
  const received = receiver.total - before;
  return {
    expected,
    received,
    unique: receiver.perEvent.size,
    complete,
    perSecond: receiver.perEvent.size / seconds,
  };
}

/** (0) The receiver's ceiling on this machine: a bare client at the same concurrency. */
async function ceilingRun(receiver: Receiver): Promise<number> {
  const pool = new Pool(receiver.url, { connections: CONCURRENCY });
  const total = BACKLOG;
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < total) {
        sent += 1;
        const { body } = await pool.request({
          method: 'POST',
          path: '/ceiling',
          headers: { 'content-type': 'application/json' },
          body: BODY,
        });
        await body.dump();
      }
    }),
  );
  const perSecond = total / ((performance.now() - started) / 1000);
  await pool.close();
  return perSecond;
}

const progress = (text: string) => process.stderr.write(`[bench/delivery] ${text}\n`);

async function benchCase(name: string, databaseUrl: string, receiver: Receiver) {
  const service = await startHookwatch({ DATABASE_URL: databaseUrl });
  try {
    progress(`${name}: latency at ${RATE}/s`);
    const latency = await latencyRun(service, receiver);
    progress(`${name}: backlog of ${BACKLOG}, then drain`);
    const throughput = await throughputRun(service, receiver);
    return { name, latency, throughput };
  } finally {
    await service.stop();
  }
}

export async function benchDelivery(): Promise<string> {
  const receiver = await startReceiver();
  try {
    progress('receiver ceiling');
    const ceiling = await ceilingRun(receiver);
    const sqlite = sqliteUrl();
    const cases: Array<Awaited<ReturnType<typeof benchCase>>> = [];
    try {
      cases.push(await benchCase('SQLite', sqlite, receiver));
    } finally {
      dropSqlite(sqlite);
    }
    const pgUrl = await postgresUrl();
    if (pgUrl) {
      try {
        cases.push(await benchCase('PostgreSQL', pgUrl, receiver));
      } finally {
        await dropPostgres(pgUrl);
      }
    } else {
      console.log('!!! no PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432: skipped');
    }
    const lines = table(
      cases.map((c) => ({
        database: c.name,
        'capture 200 p50 ms': c.latency.captureP50.toFixed(1),
        'latency p50 ms': c.latency.p50.toFixed(1),
        'latency p99 ms': c.latency.p99.toFixed(1),
        'delivered/captured': `${c.latency.delivered}/${c.latency.measured}`,
        'deliveries/s': Math.round(c.throughput.perSecond),
        'vs ceiling': (c.throughput.perSecond / ceiling).toFixed(2),
        'sent once': c.throughput.received === c.throughput.unique ? 'yes' : 'NO',
        drained: c.throughput.complete ? `${c.throughput.unique}/${c.throughput.expected}` : 'NO',
      })),
    );
    return [
      `Delivery: latency at ${RATE} captures/s for ${LATENCY_SECONDS} s after ${WARMUP_SECONDS} s warm-up; ` +
        `throughput draining a backlog of ${BACKLOG}; default DELIVERY_CONCURRENCY/DELIVERY_PER_HOST`,
      `(0) receiver ceiling, bare undici client, ${CONCURRENCY} connections: ${Math.round(ceiling)} req/s`,
      lines,
      'Latency runs from sending the capture to the receiver reading the forwarded request; the',
      'capture column is the part until the 200 (the commit). Targets: latency p50 ≤ 10 ms,',
      'p99 ≤ 50 ms; ≥ 2,000 deliveries/s on PostgreSQL.',
    ].join('\n');
  } finally {
    await receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchDelivery());
  process.exit(0);
}
