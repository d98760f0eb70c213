import { createAlertScheduler } from './alerts/scheduler.js';
import { createDeliveryWorker } from './delivery/worker.js';
import { createRetentionSweeper } from './retention/sweeper.js';
import type { Services } from './services.js';

/** A background loop (delivery, alerts, retention): `stop()` finishes or hands back its work. */
export interface BackgroundLoop {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The loops this instance runs, in start order (they stop in reverse). Each reads its
 * own settings from `services.config`; roles decide which run here.
 */
export function createBackgroundLoops(services: Services): BackgroundLoop[] {
  const loops: BackgroundLoop[] = [];
  if (services.config.roles.has('worker')) {
    // The delivery worker, alert scheduler and retention sweeper register here.
    loops.push(createDeliveryWorker(services));
    loops.push(createAlertScheduler(services));
    loops.push(createRetentionSweeper(services));
  }
  return loops;
}
