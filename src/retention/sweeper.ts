import { MICROS_PER_HOUR } from '../clock.js';
import type { BackgroundLoop } from '../loops.js';
import type { Services } from '../services.js';
import { deleteEventsBefore } from '../store/retention.js';
import { deleteExpiredSessions } from '../store/sessions.js';
import { deleteExpiredLoginFailures } from '../store/loginFailures.js';
import { deleteEndedAddressLimits } from '../store/addressLimits.js';

const BATCH = 1000;
const PERIOD_MS = 10 * 60 * 1000;

/**
 * RETENTION_DAYS (DESIGN §9): events older than that are removed with their pending
 * retries; with 0 they are kept forever. Expired login sessions, and on PostgreSQL the
 * login throttle's stale counts, are removed either way.
 * Runs at start and every ten minutes; with several instances each may sweep, which is
 * harmless (the deletes are idempotent). Returns how many events it removed.
 */
export function createRetentionSweeper(services: Services) {
  const { config, store, clock, logger } = services;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = false;

  async function sweep(): Promise<number> {
    const now = clock.nowMicros();
    const sessions = await deleteExpiredSessions(store, now);
    if (sessions > 0) logger.info({ deleted: sessions }, 'expired sessions removed');
    // On SQLite the failed-login log is in memory and bounds itself.
    if (store.dialect === 'postgres') {
      await deleteExpiredLoginFailures(store, now);
      // The per-address windows run on the wall clock, as the rate-limit plugin's own.
      await deleteEndedAddressLimits(store, Date.now() * 1000);
    }
    if (config.retentionDays === 0) return 0;
    const cutoff = now - config.retentionDays * 24 * MICROS_PER_HOUR;
    let total = 0;
    while (!stopped) {
      const deleted = await deleteEventsBefore(store, cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0)
      logger.info({ deleted: total, retentionDays: config.retentionDays }, 'retention sweep');
    return total;
  }

  function runOnce(): Promise<number> {
    running ??= sweep()
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'retention sweep failed; will try again');
        return 0;
      })
      .finally(() => (running = null));
    return running;
  }

  const loop: BackgroundLoop & { sweep(): Promise<number> } = {
    name: 'retention',
    start() {
      void runOnce();
      timer = setInterval(() => void runOnce(), PERIOD_MS);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
    sweep: runOnce,
  };
  return loop;
}
