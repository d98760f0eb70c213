import { MICROS_PER_HOUR, MICROS_PER_MINUTE } from '../clock.js';
import type { BackgroundLoop } from '../loops.js';
import type { Services } from '../services.js';
import {
  type AlertCheck,
  claimAlert,
  claimDueAlertSends,
  findAlertCandidates,
} from '../store/alerts.js';
import type { AlertKind } from '../store/schema.js';
import { type DispatchDeps, dispatchAlert } from './dispatch.js';
import { createEmailSender } from './email.js';
import { createWebhookSender } from './webhook.js';

export interface AlertSchedulerOptions {
  /**
   * How often the checks run. An alert must go out within 15 s of its deadline
   * (DESIGN §6); each check is a few indexed queries, so a short period costs little.
   */
  periodMs?: number;
}

export const DEFAULT_ALERT_PERIOD_MS = 2_000;

/** Recoveries first: an endpoint that recovered and fell silent again gets both notices in order. */
const CHECK_ORDER: readonly AlertKind[] = [
  'silence_recovered',
  'failing_recovered',
  'silence',
  'failing',
];

const BATCH = 200;
const MAX_ROUNDS = 50;
/** Sends in flight at once; more due alerts wait for the next cycle. */
const MAX_SENDING = 16;
/** Longer than a send can take with the channels' timeouts, so a lease never runs out mid-send. */
const SEND_LEASE_MICROS = 2 * MICROS_PER_MINUTE;

/**
 * The alert scheduler (DESIGN §5, §6): every few seconds it claims the notices that are
 * due — silence past its deadline, forwarding failing for FAILING_ALERT_HOURS, and the
 * recoveries — each with a guarded update and an outbox row, then sends what the outbox
 * holds. Safe to run on every instance at once: the database decides who sends.
 */
export class AlertScheduler implements BackgroundLoop {
  readonly name = 'alerts';
  private readonly periodMs: number;
  private readonly deps: DispatchDeps;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private started = false;
  /** Cycles run one after another, whether started by the timer or by `tick()`. */
  private chain: Promise<void> = Promise.resolve();
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly services: Services,
    options: AlertSchedulerOptions = {},
  ) {
    this.periodMs = options.periodMs ?? DEFAULT_ALERT_PERIOD_MS;
    const { config } = services;
    this.deps = {
      store: services.store,
      clock: services.clock,
      logger: services.logger,
      metrics: services.metrics,
      get baseUrl() {
        // Read late: with PORT=0 the base URL is known only once the server listens.
        return config.baseUrl;
      },
      email: config.smtpUrl === null ? null : createEmailSender(config.smtpUrl, config.alertFrom),
      webhook: createWebhookSender({ allowPrivateTargets: config.allowPrivateTargets }),
    };
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    const loop = () => {
      this.timer = null;
      if (this.stopped) return;
      this.runCycle()
        .catch((error: unknown) =>
          this.services.logger.error({ err: error }, 'alert check failed; retrying next period'),
        )
        .finally(() => {
          if (this.stopped) return;
          this.timer = setTimeout(loop, this.periodMs);
          this.timer.unref();
        });
    };
    loop();
  }

  /**
   * Runs one check now and waits for every send in flight to finish. Tests move a manual
   * clock and call this instead of waiting for the period.
   */
  async tick(): Promise<void> {
    await this.runCycle();
    while (this.sending.size > 0) await Promise.all([...this.sending]);
  }

  /** Stops checking; sends already under way finish (each is bounded by its timeouts). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.chain;
    while (this.sending.size > 0) await Promise.all([...this.sending]);
    this.deps.email?.close();
    await this.deps.webhook.close();
  }

  private runCycle(): Promise<void> {
    const run = this.chain.then(() => this.cycle());
    this.chain = run.catch(() => {});
    return run;
  }

  private async cycle(): Promise<void> {
    if (this.stopped) return;
    const { config, clock, store } = this.services;
    const now = clock.nowMicros();
    const check: AlertCheck = {
      now,
      failingCutoff: now - Math.round(config.failingAlertHours * MICROS_PER_HOUR),
      failingAlertHours: config.failingAlertHours,
      emailEnabled: this.deps.email !== null,
    };
    for (const kind of CHECK_ORDER) {
      // A claim that loses a race drops the endpoint from the candidates, so each round
      // makes progress; the bound only keeps one cycle from running unboundedly long.
      for (let round = 0; round < MAX_ROUNDS; round += 1) {
        const ids = await findAlertCandidates(store, kind, check, BATCH);
        for (const id of ids) {
          const alert = await claimAlert(store, kind, id, check);
          if (alert) {
            this.services.logger.info(
              { alert: alert.id, kind, endpoint: id },
              `alert raised: ${kind} on endpoint ${id}`,
            );
          }
        }
        if (ids.length < BATCH) break;
      }
    }
    if (this.stopped) return;
    const room = MAX_SENDING - this.sending.size;
    if (room <= 0) return;
    const due = await claimDueAlertSends(store, clock.nowMicros(), SEND_LEASE_MICROS, room);
    for (const alert of due) {
      const task = dispatchAlert(alert, this.deps)
        .catch((error: unknown) =>
          // The lease runs out and another cycle picks the alert up again.
          this.services.logger.error(
            { err: error, alert: alert.id },
            'recording an alert send failed',
          ),
        )
        .finally(() => this.sending.delete(task));
      this.sending.add(task);
    }
  }
}

export function createAlertScheduler(
  services: Services,
  options: AlertSchedulerOptions = {},
): AlertScheduler {
  return new AlertScheduler(services, options);
}
