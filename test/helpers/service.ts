import { afterAll, beforeAll, describe } from 'vitest';
import pino from 'pino';
import { ManualClock, type Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { type RunningService, startService } from '../../src/service.js';
import type { Dialect } from '../../src/store/db.js';
import { DIALECTS, type TestDatabase, createTestDatabase, pgAvailable } from './db.js';

export interface TestServiceOptions {
  /** Extra environment, as an operator would set it (PORT, HOST and DATABASE_URL are set for you). */
  env?: Record<string, string>;
  clock?: Clock;
}

/**
 * A real service on a loopback port over a fresh database: the same `startService` that
 * `hookwatch serve` runs, with an optional injected clock. Private targets are allowed so
 * tests can forward to receivers on 127.0.0.1.
 */
export async function startTestService(
  database: TestDatabase,
  options: TestServiceOptions = {},
): Promise<RunningService> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    HOOKWATCH_ALLOW_PRIVATE_TARGETS: '1',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  return startService(config, {
    clock: options.clock,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
  });
}

export interface ServiceContext {
  readonly service: RunningService;
  readonly url: string;
  readonly database: TestDatabase;
  readonly clock: ManualClock | undefined;
  dialect: Dialect;
}

/**
 * Runs a suite once per dialect against a running service on a fresh database.
 * `manualClock: true` gives the service a ManualClock the tests move by hand.
 */
export function describeService(
  name: string,
  options: TestServiceOptions & { manualClock?: boolean },
  body: (ctx: ServiceContext) => void,
): void {
  for (const dialect of DIALECTS) {
    const run = dialect === 'postgres' && !pgAvailable() ? describe.skip : describe;
    run(`${name} [${dialect}]`, () => {
      let service: RunningService | undefined;
      let database: TestDatabase | undefined;
      const clock = options.manualClock ? new ManualClock() : undefined;
      beforeAll(async () => {
        database = await createTestDatabase(dialect);
        service = await startTestService(database, { ...options, clock: clock ?? options.clock });
      });
      afterAll(async () => {
        await service?.stop();
        await database?.drop();
      });
      body({
        get service() {
          if (!service) throw new Error('service not started');
          return service;
        },
        get url() {
          if (!service) throw new Error('service not started');
          return service.url;
        },
        get database() {
          if (!database) throw new Error('database not ready');
          return database;
        },
        clock,
        dialect,
      });
    });
  }
}
