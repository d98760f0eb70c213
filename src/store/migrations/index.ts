import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Store } from '../db.js';
import { initial } from './001_initial.js';
import { rateLimits } from './002_rate_limits.js';
import { alerts } from './003_alerts.js';

// Forward-only: a migration, once released, is never edited; a change is a new file.
function migrationsFor(store: Store): Record<string, Migration> {
  return {
    '001_initial': initial(store.dialect),
    '002_rate_limits': rateLimits(store.dialect),
    '003_alerts': alerts(store.dialect),
  };
}

class StaticProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}

/** Brings the schema up to date; safe when several instances start at once. */
export async function migrate(store: Store): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: new StaticProvider(migrationsFor(store)),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`database migration ${failed ?? ''} failed: ${message}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
