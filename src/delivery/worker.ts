import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { MICROS_PER_SECOND } from '../clock.js';
import type { BackgroundLoop } from '../loops.js';
import type { Services } from '../services.js';
import {
  type ClaimedAttempt,
  type RecordedResult,
  type ReleasedAttempt,
  claimDueAttempts,
  dueQueueStats,
  loadDeliveryPayloads,
  nextScheduledAt,
  releaseExpiredLeases,
} from '../store/attempts/index.js';
import { type Ready, deliverAttempt } from './deliverAttempt.js';
import { chooseCandidates, saturatedEndpoints } from './hostRoom.js';
import { ResultWriter } from './resultWriter.js';
import { AttemptUpdates } from './updates.js';
import { DeliveryLanes, PREFETCH, destinationOf } from './slots.js';
import { createGuardedAgent } from './ssrf.js';
import { WakeTimer } from './wakeTimer.js';

export interface DeliveryWorkerOptions {
  /** The safety-net poll; wake-ups and timers do the real work. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Default 10 000 ms (DESIGN §5). */
  connectTimeoutMs?: number;
  /** Default 30 000 ms (DESIGN §5). */
  totalTimeoutMs?: number;
  /** How long `stop()` lets in-flight attempts finish before handing them back. Default 5000 ms. */
  stopGraceMs?: number;
  /** The resolver (system DNS by default). */
  lookup?: LookupFunction;
}

// Bounds one claim statement.
const MAX_CLAIM = 500;

/**
 * The delivery worker (DESIGN §5): claims due attempts, sends them, records the outcome.
 * It wakes on a capture commit (in-process) or a NOTIFY (other instances), on a timer
 * for the next due attempt, and on a ≈1 s poll as the safety net. Every time it
 * computes comes from `services.clock`, so tests drive the schedule by hand.
 */
export class DeliveryWorker implements BackgroundLoop {
  readonly name = 'delivery';
  private readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private claimSeq = 0;
  private readonly lanes: DeliveryLanes<Ready>;
  private readonly agent: Agent;
  private readonly writer: ResultWriter;
  private readonly updates: AttemptUpdates;
  private readonly sends = new Map<number, { abort: AbortController; done: Promise<void> }>();
  private stopping = false;
  /** Destination of each endpoint's forwarding URL, as last seen: used to skip saturated ones. */
  private readonly endpointHosts = new Map<number, string>();
  private readonly unsubscribe: Array<() => void> = [];
  private started = false;
  private stopped = false;
  private running: Promise<void> | null = null;
  private rerun = false;
  private waiters: Array<() => void> = [];
  /** The last pass left due work behind (no free slot, or a saturated host). */
  private backlog = false;
  /** A wake-up that may bring new work (not just a freed slot) arrived since the last pass. */
  private fresh = true;
  /** The last look past saturated hosts found nothing due. */
  private onlySaturatedDue = false;
  private poll: NodeJS.Timeout | null = null;
  private readonly timer: WakeTimer;

  constructor(
    private readonly services: Services,
    private readonly options: DeliveryWorkerOptions = {},
  ) {
    const { config } = services;
    this.lanes = new DeliveryLanes(config.deliveryConcurrency, config.deliveryPerHost);
    this.timer = new WakeTimer(options.pollIntervalMs ?? 1000, () => void this.wake());
    this.agent = createGuardedAgent({
      allowPrivateTargets: config.allowPrivateTargets,
      connectTimeoutMs: options.connectTimeoutMs,
      lookup: options.lookup,
    });
    this.updates = new AttemptUpdates(services.bus, services.logger);
    this.writer = new ResultWriter(services.store, services.logger, {
      onRecorded: (recorded) => this.onRecorded(recorded),
      onReleased: (released) => this.onReleased(released),
    });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    const { bus } = this.services;
    const wake = () => void this.wake();
    this.unsubscribe.push(
      bus.subscribe('attempt_due', wake),
      // A resumed endpoint's due attempts go out at once; a new URL is picked up.
      bus.subscribe('endpoint_changed', () => {
        this.endpointHosts.clear();
        wake();
      }),
      bus.onReconnect(wake),
    );
    this.poll = setInterval(() => void this.tick(), this.options.pollIntervalMs ?? 1000);
    this.poll.unref();
    void this.tick();
  }

  /**
   * Runs a pass soon; resolves when a pass that began after this call has finished
   * claiming (the sends it started may still be out — see `settled`).
   */
  wake(): Promise<void> {
    return this.requestPass(true);
  }

  private requestPass(fresh: boolean): Promise<void> {
    if (this.stopped || !this.started) return Promise.resolve();
    if (fresh) this.fresh = true;
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      if (this.running) {
        this.rerun = true;
        return;
      }
      this.running = this.runPasses();
    });
  }

  /** Resolves when nothing is in flight or waiting here and every result is written. */
  async settled(): Promise<void> {
    while (this.sends.size > 0 || this.lanes.waiting > 0) {
      if (this.sends.size === 0) this.pump();
      await Promise.all([...this.sends.values()].map((s) => s.done));
    }
    await this.writer.flush();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.poll) clearInterval(this.poll);
    this.timer.cancel();
    await this.running;
    // Claimed but not started: straight back to the queue. In flight: a moment to
    // finish, then handed back unrecorded (another instance, or this one after a
    // restart, sends them again).
    this.stopping = true;
    for (const ready of this.lanes.drain()) this.writer.handBack(ready.claim.row.id, ready.token);
    const grace = this.options.stopGraceMs ?? 5000;
    const allDone = Promise.all([...this.sends.values()].map((s) => s.done));
    let graceTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      allDone,
      new Promise((resolve) => {
        graceTimer = setTimeout(resolve, grace);
      }),
    ]);
    clearTimeout(graceTimer);
    for (const send of this.sends.values()) send.abort.abort();
    await allDone;
    await this.writer.flush();
    await this.updates.flush();
    await this.agent.close().catch(() => {});
  }

  private async runPasses(): Promise<void> {
    do {
      this.rerun = false;
      const waiters = this.waiters.splice(0);
      try {
        await this.pass();
      } catch (error) {
        this.services.logger.error({ err: error }, 'delivery pass failed');
      }
      for (const done of waiters) done();
    } while (this.rerun && !this.stopped);
    this.running = null;
    for (const done of this.waiters.splice(0)) done();
  }

  /** The poll: leases that ran out, queue metrics, and a pass. */
  private async tick(): Promise<void> {
    if (this.stopped) return;
    const { store, clock, metrics, logger } = this.services;
    try {
      const now = clock.nowMicros();
      this.onReleased(await releaseExpiredLeases(store, now));
      const stats = await dueQueueStats(store, now);
      metrics.queueDepth.set(stats.due);
      metrics.oldestDueAge.set(
        stats.oldestScheduledAt === null ? 0 : Math.max(0, now - stats.oldestScheduledAt) / 1e6,
      );
    } catch (error) {
      logger.warn({ err: error }, 'delivery poll failed');
    }
    await this.wake();
  }

  private async pass(): Promise<void> {
    const { store, clock, config } = this.services;
    if (this.fresh) {
      this.fresh = false;
      this.onlySaturatedDue = false;
    }
    this.backlog = false;
    // A second look only when per-host limits turned candidates away: attempts for
    // other hosts may be due behind them.
    for (let look = 0; look < 2 && !this.stopped; look += 1) {
      const room = this.lanes.claimRoom();
      if (room <= 0) {
        this.backlog = true;
        return;
      }
      const skipEndpoints = saturatedEndpoints(this.lanes, this.endpointHosts);
      if (skipEndpoints.length > 0) {
        // Attempts of saturated hosts were left out unseen: look again when a slot frees.
        this.backlog = true;
        // The last look past them found nothing else due; scanning their backlog again
        // on every finished send would cost O(backlog) each time. New work resets this.
        if (this.onlySaturatedDue) break;
      }
      // No more rows locked than one host could take, so a claim for a single busy
      // destination stays small; other hosts' rows come with the second look.
      const limit = Math.min(room, MAX_CLAIM, 2 * PREFETCH * config.deliveryPerHost);
      let seen = 0;
      const claimed = await claimDueAttempts(store, {
        now: clock.nowMicros(),
        leaseMicros: config.attemptLeaseSeconds * MICROS_PER_SECOND,
        claimToken: `${this.workerId}:${++this.claimSeq}`,
        limit,
        skipEndpoints,
        choose: (candidates) => {
          seen = candidates.length;
          return chooseCandidates(candidates, room, this.lanes, this.endpointHosts);
        },
      });
      if (seen === 0 && skipEndpoints.length > 0) this.onlySaturatedDue = true;
      if (claimed.length > 0) await this.enqueue(claimed);
      if (claimed.length === seen) break;
      this.backlog = true;
    }
    if (!this.backlog) await this.armTimer();
  }

  /** A timer for the next attempt due before the next poll would find it. */
  private async armTimer(): Promise<void> {
    const { store, clock } = this.services;
    const now = clock.nowMicros();
    const at = await nextScheduledAt(store, now);
    if (at === null || this.stopped) return;
    this.timer.arm(at, now);
  }

  /** Claimed attempts wait in their host's line, with what they send, until a slot frees. */
  private async enqueue(claimed: ClaimedAttempt[]): Promise<void> {
    // Should this read fail, the claims stand: their leases run out and they are sent again.
    const payloads = await loadDeliveryPayloads(
      this.services.store,
      claimed.map((c) => c.row.event_id),
    );
    for (const claim of claimed) {
      this.updates.changed(claim.row.endpoint_id, claim.row.event_id);
      const payload = payloads.get(claim.row.event_id);
      // The event was deleted after the claim: its attempts went with it.
      if (!payload) continue;
      const host = destinationOf(
        claim.row.trigger === 'replay' ? claim.row.target_url : claim.forwardingUrl,
      );
      this.lanes.enqueue(host, { claim, payload, token: claim.row.claimed_by! });
    }
    this.pump();
  }

  /** Starts every waiting attempt a slot allows. */
  private pump(): void {
    if (this.stopping) return;
    for (const { host, item } of this.lanes.startable()) {
      const id = item.claim.row.id;
      const abort = new AbortController();
      const done = deliverAttempt(item, abort.signal, {
        services: this.services,
        agent: this.agent,
        writer: this.writer,
        totalTimeoutMs: this.options.totalTimeoutMs,
      })
        .catch((error: unknown) =>
          this.services.logger.error({ err: error, attempt: id }, 'delivery failed'),
        )
        .finally(() => {
          this.sends.delete(id);
          this.lanes.finish(host);
          this.pump();
          if (this.backlog && this.lanes.wantsRefill(host)) void this.requestPass(false);
        });
      this.sends.set(id, { abort, done });
    }
  }

  private onRecorded(recorded: RecordedResult[]): void {
    let soonest: number | null = null;
    for (const { result, next } of recorded) {
      this.updates.changed(result.endpointId, result.eventId);
      if (next && (soonest === null || next.scheduledAt < soonest)) soonest = next.scheduledAt;
    }
    if (soonest !== null && !this.stopped) void this.armTimer();
  }

  private onReleased(released: ReleasedAttempt[]): void {
    for (const r of released) this.updates.changed(r.endpoint_id, r.event_id);
    if (released.length > 0) void this.wake();
  }
}

export function createDeliveryWorker(
  services: Services,
  options?: DeliveryWorkerOptions,
): DeliveryWorker {
  return new DeliveryWorker(services, options);
}
