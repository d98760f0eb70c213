import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Store } from '../db.js';
import { initial } from './001_initial.js';
import { rateLimits } from './002_rate_limits.js';
import { alerts } from './003_alerts.js';
import { eventsEndpointCheck } from './004_events_endpoint_check.js';
import { loginThrottle } from './005_login_throttle.js';
import { dropEventsUserIndex } from './006_drop_events_user_index.js';

// Forward-only: a migration, once released, is never edited; a change is a new file.
function migrationsFor(store: Store): Record<string, Migration> {
  return {
    '001_initial': initial(store.dialect),
    '002_rate_limits': rateLimits(store.dialect),
    '003_alerts': alerts(store.dialect),
    '004_events_endpoint_check': eventsEndpointCheck(store.dialect),
    '005_login_throttle': loginThrottle(store.dialect),
    '006_drop_events_user_index': dropEventsUserIndex(),
  };
}

class StaticProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}

function isSqliteBusy(error: unknown): boolean {
  return (error as { code?: string } | null)?.code?.startsWith('SQLITE_BUSY') ?? false;
}

/**
 * Brings the schema up to date; safe when several instances start at once. On SQLite a
 * run that meets a busy database despite the busy timeout (seen when several processes
 * open a brand-new file at once) is tried again: each migration runs in a transaction,
 * so a failed run left nothing behind.
 */
export async function migrate(store: Store): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: new StaticProvider(migrationsFor(store)),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) {
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    }
    if (store.dialect === 'sqlite' && isSqliteBusy(error) && attempt < 5) {
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`database migration ${failed ?? ''} failed: ${message}`);
  }
}
