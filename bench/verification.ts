// What signature verification costs capture: Stripe verification off versus on over the
// very same signed requests (1 KiB JSON bodies, 50 connections), in one warm SQLite
// server whose endpoint is switched between rounds. Rounds go off-on, on-off, off-on, …
// so a drift of this shared machine during the run falls on both sides alike; the cost
// is the median of the per-round ratios. Many short rounds (BENCH_ROUNDS 24 of
// BENCH_SECONDS 2 per side) follow this machine's slow spells better than a few long ones.
// A control that stored a fixed label without verifying anything measured -3.2 and
// -10.5 % over 12 rounds, and +1.5 % over 24; hence 24.
import Stripe from 'stripe';
import { openStore } from '../src/store/db.js';
import { jsonBody, load, median, table } from './lib/load.js';
import {
  cpuSeconds,
  dropSqlite,
  prepareEndpoint,
  sqliteUrl,
  startHookwatch,
} from './lib/processes.js';

const CONNECTIONS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 24);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const WARMUP_SECONDS = 3;
const BODY = jsonBody(1024);
const SECRET = 'whsec_bench_secret';

interface Measured {
  rps: number;
  /** Server CPU (all threads) per answered request. */
  cpu: number;
}

export async function benchVerification(): Promise<string> {
  const stripeHeader = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({
    payload: BODY,
    secret: SECRET,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const databaseUrl = sqliteUrl();
  const service = await startHookwatch({ DATABASE_URL: databaseUrl });
  try {
    const endpoint = await prepareEndpoint(service.url, { signing_secret: SECRET });
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
    const run = async (scheme: string | null): Promise<Measured> => {
      await setScheme(scheme);
      const cpuBefore = cpuSeconds(service.child);
      const result = await load({ ...options, seconds: SECONDS });
      return {
        rps: result.requestsPerSecond,
        cpu: ((cpuSeconds(service.child) - cpuBefore) * 1e6) / Math.max(1, result.ok),
      };
    };

    await load({ ...options, seconds: WARMUP_SECONDS });
    const rounds: Array<{ off: Measured; on: Measured }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        const off = await run(null);
        rounds.push({ off, on: await run('stripe') });
      } else {
        const on = await run('stripe');
        rounds.push({ on, off: await run(null) });
      }
    }

    const store = openStore(databaseUrl);
    const invalid = await store.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('signature', '=', 'invalid')
      .executeTakeFirstOrThrow();
    await store.close();

    const throughputCost = rounds.map((r) => 1 - r.on.rps / r.off.rps);
    const cpuCost = rounds.map((r) => r.on.cpu / r.off.cpu - 1);
    const percent = (x: number) => `${(x * 100).toFixed(1)} %`;
    const rows = table(
      rounds.map((r, i) => ({
        round: `${i + 1} (${i % 2 === 0 ? 'off, on' : 'on, off'})`,
        'off req/s': Math.round(r.off.rps),
        'on req/s': Math.round(r.on.rps),
        'throughput cost': percent(throughputCost[i]!),
        'off CPU µs/req': r.off.cpu.toFixed(1),
        'on CPU µs/req': r.on.cpu.toFixed(1),
        'CPU cost': percent(cpuCost[i]!),
      })),
    );
    return [
      `Stripe verification off/on: same signed requests, same SQLite server, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per side`,
      rows,
      `Verification cost (median of rounds): ${percent(median(throughputCost))} of capture throughput, ` +
        `${percent(median(cpuCost))} more server CPU per capture (target < 10 %). ` +
        `Requests labelled invalid: ${Number(invalid.n)} (must be 0).`,
    ].join('\n');
  } finally {
    await service.stop();
    dropSqlite(databaseUrl);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchVerification());
}
