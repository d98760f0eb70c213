import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type DatabaseConnection,
  type MigrationLockOptions,
  Kysely,
  PostgresDialect,
  type RawBuilder,
  SqliteAdapter,
  SqliteDialect,
  type Transaction,
  sql,
} from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database> | Kysely<Database>;

export interface Store {
  db: Db;
  dialect: Dialect;
  /** The connection string it was opened with (LISTEN needs its own connection). */
  url: string;
  /**
   * SQLite only: the connection under Kysely, for the capture hot path's cached prepared
   * statements. Use it only inside `store.db.connection().execute(…)`, which keeps
   * Kysely's own queries off the connection meanwhile.
   */
  sqlite: SqliteDatabase.Database | null;
  /**
   * PostgreSQL only: the pool under Kysely, for the capture hot path's named (prepared)
   * statement, which Kysely cannot issue. Kysely takes its connections from the same pool.
   */
  pgPool: pg.Pool | null;
  close(): Promise<void>;
}

/**
 * SQLite can run DDL inside a transaction; Kysely's adapter says otherwise and takes no
 * lock, so two processes starting at once could both create the same table. Running
 * migrations in a transaction whose first statement is a write makes the second process
 * wait on the busy timeout, then find the work done.
 */
class LockingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  override async acquireMigrationLock(
    db: Kysely<unknown>,
    opt: MigrationLockOptions,
  ): Promise<void> {
    await sql`update ${sql.table(opt.lockTable)} set is_locked = 1 where id = ${opt.lockRowId}`.execute(
      db,
    );
  }
}

class LockingSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new LockingSqliteAdapter();
  }
}

export function sqlitePath(url: string): string {
  return resolve(url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''));
}

/** A connection with the settings every Hookwatch SQLite connection uses. */
export function openSqliteConnection(file: string): SqliteDatabase.Database {
  mkdirSync(dirname(file), { recursive: true });
  const database = new SqliteDatabase(file);
  // First, so that every statement after it — switching a new file to WAL takes an
  // exclusive lock — waits for another process instead of failing at once.
  database.pragma('busy_timeout = 10000');
  database.pragma('journal_mode = WAL');
  // better-sqlite3 would silently run WAL with synchronous=NORMAL; an acknowledged
  // capture must survive power loss, and group commit pays the fsync once per batch.
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  return database;
}

function openSqlite(url: string): Store {
  const database = openSqliteConnection(sqlitePath(url));
  const db = new Kysely<Database>({ dialect: new LockingSqliteDialect({ database }) });
  return {
    db,
    dialect: 'sqlite',
    url,
    sqlite: database,
    pgPool: null,
    close: () => db.destroy(),
  };
}

/** pg returns BIGINT as a string; our ids and microsecond times fit a double exactly. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function openPostgres(url: string, poolSize: number): Store {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes });
  // An idle client that loses its server emits 'error'; without a listener that would
  // crash the process. The pool replaces the client on the next checkout.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    url,
    sqlite: null,
    pgPool: pool,
    close: () => db.destroy(),
  };
}

export function openStore(url: string, options: { poolSize?: number } = {}): Store {
  if (url.startsWith('sqlite:')) return openSqlite(url);
  return openPostgres(url, options.poolSize ?? 10);
}

export function newPgClient(url: string): pg.Client {
  return new pg.Client({ connectionString: url, types: pgTypes });
}

export interface WriteOptions {
  /**
   * False: the commit does not wait for the disk (SQLite `synchronous=NORMAL`, PostgreSQL
   * `synchronous_commit=off`). A process crash still loses nothing, since the commit is
   * in the operating system's hands; only an operating-system crash or power cut can undo
   * it, and then only until the next durable commit, which flushes it too. So it is only
   * for writes whose loss is repaired by what is already durable: the attempt queue's
   * claims and results, where a lost write means an attempt goes out again (delivery is
   * at-least-once, DESIGN §5) and never that one is lost.
   */
  durable?: boolean;
  /** PostgreSQL only: settings for this transaction alone (`SET LOCAL`). */
  settings?: Readonly<Record<string, string>>;
}

const SETTING_NAME = /^[a-z_]+$/;
const SETTING_VALUE = /^[A-Za-z0-9_]+$/;

/** `select set_config(…)` for settings named in our own code, checked before inlining. */
function settingsStatement(settings: Record<string, string>): string {
  const calls = Object.entries(settings).map(([name, value]) => {
    if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(value)) {
      throw new Error(`not a plain setting: ${name} = ${value}`);
    }
    return `set_config('${name}', '${value}', true)`;
  });
  return `select ${calls.join(', ')}`;
}

/** `begin`, then `fn` on the same connection, then commit, or rollback if it threw. */
async function inTransaction<T>(
  conn: Kysely<Database>,
  begin: RawBuilder<unknown>,
  fn: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  await begin.execute(conn);
  try {
    const result = await fn(conn);
    await sql`commit`.execute(conn);
    return result;
  } catch (error) {
    await sql`rollback`.execute(conn).catch(() => {});
    throw error;
  }
}

/**
 * Runs `fn` in a write transaction. On SQLite it is `BEGIN IMMEDIATE`: the write lock is
 * taken up front so a concurrent writer waits on the busy timeout instead of failing
 * with SQLITE_BUSY halfway through.
 */
export async function writeTransaction<T>(
  store: Store,
  fn: (trx: Kysely<Database>) => Promise<T>,
  options: WriteOptions = {},
): Promise<T> {
  const durable = options.durable ?? true;
  if (store.dialect === 'postgres') {
    const settings = { ...options.settings, ...(durable ? {} : { synchronous_commit: 'off' }) };
    if (Object.keys(settings).length === 0) return store.db.transaction().execute(fn);
    return store.db.connection().execute(async (conn) => {
      // BEGIN and the settings in one round trip: a query without parameters goes by the
      // simple protocol, which takes several statements. The claim and results of every
      // delivery pay this: a transaction of one statement took 186-203 µs instead of
      // 252-272, with 30 µs less of PostgreSQL's CPU and 40 µs less of ours (slow VM).
      return inTransaction(conn, sql.raw(`begin; ${settingsStatement(settings)}`), fn);
    });
  }
  return store.db.connection().execute(async (conn) => {
    // The connection's setting is FULL (openSqliteConnection); it is lowered for this
    // transaction alone and restored whatever happens, before anything else can run here.
    if (!durable) await sql`pragma synchronous = NORMAL`.execute(conn);
    try {
      return await inTransaction(conn, sql`begin immediate`, fn);
    } finally {
      if (!durable) await sql`pragma synchronous = FULL`.execute(conn);
    }
  });
}

export type { DatabaseConnection };
