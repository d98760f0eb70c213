import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { type Dialect, type Store, openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrations/index.js';

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

export interface TestDatabase {
  dialect: Dialect;
  /** A DATABASE_URL for this database, to hand to child processes or a second store. */
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of the dialect: a new SQLite file or a new PostgreSQL database. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'hookwatch-test-'));
    return {
      dialect,
      url: `sqlite:${join(dir, 'hookwatch.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = inject('pgUrl');
  if (!adminUrl) throw new Error('no PostgreSQL for this run (see the line printed at start)');
  const name = `hw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** A migrated store on a fresh database. */
export async function createTestStore(
  dialect: Dialect,
): Promise<{ store: Store; database: TestDatabase; dispose(): Promise<void> }> {
  const database = await createTestDatabase(dialect);
  const store = openStore(database.url);
  await migrate(store);
  return {
    store,
    database,
    dispose: async () => {
      await store.close();
      await database.drop();
    },
  };
}

export function pgAvailable(): boolean {
  return inject('pgUrl') !== null;
}

/**
 * Runs a suite once per dialect (as Kysely's own tests do). The store is fresh per
 * suite; tests inside share it and must not assume an empty database unless they
 * create their own users.
 */
export function describeEachDialect(
  name: string,
  body: (ctx: { readonly store: Store; readonly database: TestDatabase; dialect: Dialect }) => void,
): void {
  for (const dialect of DIALECTS) {
    const run = dialect === 'postgres' && !pgAvailable() ? describe.skip : describe;
    run(`${name} [${dialect}]`, () => {
      let store: Store | undefined;
      let database: TestDatabase | undefined;
      let dispose: (() => Promise<void>) | undefined;
      beforeAll(async () => {
        ({ store, database, dispose } = await createTestStore(dialect));
      });
      afterAll(async () => {
        await dispose?.();
      });
      body({
        get store() {
          if (!store) throw new Error('store not ready');
          return store;
        },
        get database() {
          if (!database) throw new Error('database not ready');
          return database;
        },
        dialect,
      });
    });
  }
}
