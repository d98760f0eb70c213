import type { ColumnDefinitionBuilder } from 'kysely';
import type { Dialect } from '../db.js';

/** Integer primary keys: SQLite's rowid alias, PostgreSQL's identity column. */
export function idColumn(dialect: Dialect) {
  return dialect === 'postgres'
    ? {
        type: 'bigint' as const,
        build: (c: ColumnDefinitionBuilder) => c.primaryKey().generatedByDefaultAsIdentity(),
      }
    : {
        type: 'integer' as const,
        build: (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement(),
      };
}

/** Microsecond times and counters need 64 bits; SQLite's integer already has them. */
export function bigint(dialect: Dialect) {
  return dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
}

export function blob(dialect: Dialect) {
  return dialect === 'postgres' ? ('bytea' as const) : ('blob' as const);
}
