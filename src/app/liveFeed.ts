import type { Clock } from '../clock.js';
import { MICROS_PER_SECOND } from '../clock.js';
import { presentEventSummary } from '../events/present.js';
import type { Bus } from '../store/bus.js';
import type { Store } from '../store/db.js';
import {
  findEventSummaries,
  findNewestEventId,
  listEventIdsBetween,
  listEventsAfter,
} from '../store/eventFeed.js';
import type { SseStream } from './sse.js';

/** More missed events than this and the viewer is told to reload instead. */
export const MAX_CATCH_UP = 200;
/**
 * On PostgreSQL two instances can commit captures out of id order; an event whose id is
 * below what the viewer already saw is looked for this long after the cursor moved.
 */
const LATE_COMMIT_WINDOW_MICROS = 5 * MICROS_PER_SECOND;
const LATE_SWEEP_LIMIT = 1000;

/**
 * What the browser is sent: `captured` (a new EventSummary, `id:` = its event id),
 * `attempt` (the updated EventSummary after an attempt changed; the open detail refetches)
 * and `reset` (too much was missed: reload the list).
 */
export type FeedMessage = 'captured' | 'attempt' | 'reset';

export interface ViewerOptions {
  store: Store;
  clock: Clock;
  userId: number;
  endpointId: number;
  /** The last event id the browser has; only newer ones are sent. */
  cursor: number;
  sse: SseStream;
  onError: (error: unknown) => void;
}

/** One open stream: pulls what is new for its endpoint whenever the bus says so. */
export class FeedViewer {
  readonly endpointId: number;
  private cursor: number;
  private wantNew = false;
  private readonly attemptEvents = new Set<number>();
  private running = false;
  private closed = false;
  /** Cursor history and ids sent since its oldest entry: the late-commit sweep's memory. */
  private marks: Array<{ at: number; cursor: number }> = [];
  private readonly sentIds = new Set<number>();
  private readonly sweepLateCommits: boolean;

  constructor(private readonly options: ViewerOptions) {
    this.endpointId = options.endpointId;
    this.cursor = options.cursor;
    this.sweepLateCommits = options.store.dialect === 'postgres';
  }

  /** New events may exist for this endpoint. */
  poke(): void {
    this.wantNew = true;
    this.kick();
  }

  attemptUpdated(eventId: number): void {
    this.attemptEvents.add(eventId);
    this.kick();
  }

  /** The bus lost messages (its connection dropped): catch up and have the browser reload. */
  resync(): void {
    this.options.sse.send('reset', { reason: 'missed_updates' }, this.cursor);
    this.poke();
  }

  close(): void {
    this.closed = true;
  }

  // One pull at a time per viewer; notifications arriving meanwhile fold into the next.
  private kick(): void {
    if (this.running || this.closed) return;
    this.running = true;
    void this.drain()
      .catch((error: unknown) => this.options.onError(error))
      .finally(() => {
        this.running = false;
        if (!this.closed && (this.wantNew || this.attemptEvents.size > 0)) this.kick();
      });
  }

  private async drain(): Promise<void> {
    while (!this.closed && (this.wantNew || this.attemptEvents.size > 0)) {
      if (this.wantNew) {
        this.wantNew = false;
        await this.sendNewEvents();
      }
      if (this.attemptEvents.size > 0) {
        const ids = [...this.attemptEvents];
        this.attemptEvents.clear();
        await this.sendAttemptUpdates(ids);
      }
    }
  }

  private async sendNewEvents(): Promise<void> {
    const { store, userId, endpointId, sse } = this.options;
    const rows = await listEventsAfter(store, {
      userId,
      endpointId,
      afterId: this.cursor,
      limit: MAX_CATCH_UP + 1,
    });
    if (this.closed) return;
    if (rows.length > MAX_CATCH_UP) {
      this.moveCursor(await findNewestEventId(store, userId, endpointId));
      sse.send('reset', { reason: 'too_many_missed' }, this.cursor);
      return;
    }
    for (const row of rows) {
      this.moveCursor(row.id);
      this.sentIds.add(row.id);
      sse.send('captured', presentEventSummary(row), row.id);
    }
    if (this.sweepLateCommits) await this.sendLateCommits();
  }

  private async sendLateCommits(): Promise<void> {
    const { store, userId, endpointId, clock, sse } = this.options;
    const cutoff = clock.nowMicros() - LATE_COMMIT_WINDOW_MICROS;
    while (this.marks.length > 1 && this.marks[1]!.at < cutoff) this.marks.shift();
    const floor = this.marks[0]?.cursor;
    if (floor === undefined || floor >= this.cursor) return;
    for (const id of this.sentIds) if (id <= floor) this.sentIds.delete(id);
    const ids = await listEventIdsBetween(store, {
      userId,
      endpointId,
      afterId: floor,
      beforeId: this.cursor,
      limit: LATE_SWEEP_LIMIT,
    });
    const missed = ids.filter((id) => !this.sentIds.has(id));
    if (missed.length === 0 || this.closed) return;
    for (const row of await findEventSummaries(store, userId, missed)) {
      this.sentIds.add(row.id);
      // No `id:` here: the browser's Last-Event-ID must not move backwards.
      sse.send('captured', presentEventSummary(row));
    }
  }

  private async sendAttemptUpdates(eventIds: number[]): Promise<void> {
    const { store, userId, endpointId, sse } = this.options;
    const rows = await findEventSummaries(store, userId, eventIds);
    if (this.closed) return;
    for (const row of rows) {
      if (row.endpoint_id === endpointId) sse.send('attempt', presentEventSummary(row));
    }
  }

  private moveCursor(id: number): void {
    if (id <= this.cursor) return;
    if (this.sweepLateCommits)
      this.marks.push({ at: this.options.clock.nowMicros(), cursor: this.cursor });
    this.cursor = id;
  }
}

/**
 * Fans the bus out to open streams. The bus is in-process on SQLite and LISTEN/NOTIFY on
 * PostgreSQL, so a viewer on one instance sees captures and attempts made on any other.
 */
export class LiveFeed {
  private readonly viewers = new Map<number, Set<FeedViewer>>();
  private readonly unsubscribe: Array<() => void>;

  constructor(bus: Bus) {
    this.unsubscribe = [
      // Payload: the comma-separated endpoint ids of one committed capture batch.
      bus.subscribe('event_captured', (payload) => {
        for (const id of payload.split(',')) this.each(Number(id), (v) => v.poke());
      }),
      // Payload: `<endpointId>:<eventId>`, published by the delivery worker.
      bus.subscribe('attempt_updated', (payload) => {
        const [endpointId, eventId] = payload.split(':').map(Number);
        if (endpointId && eventId) this.each(endpointId, (v) => v.attemptUpdated(eventId));
      }),
      bus.onReconnect(() => {
        for (const set of this.viewers.values()) for (const v of set) v.resync();
      }),
    ];
  }

  get size(): number {
    let n = 0;
    for (const set of this.viewers.values()) n += set.size;
    return n;
  }

  add(viewer: FeedViewer): void {
    let set = this.viewers.get(viewer.endpointId);
    if (!set) this.viewers.set(viewer.endpointId, (set = new Set()));
    set.add(viewer);
  }

  remove(viewer: FeedViewer): void {
    viewer.close();
    const set = this.viewers.get(viewer.endpointId);
    set?.delete(viewer);
    if (set?.size === 0) this.viewers.delete(viewer.endpointId);
  }

  /** Stops listening to the bus; the route ends the streams themselves. */
  close(): void {
    for (const off of this.unsubscribe) off();
  }

  private each(endpointId: number, fn: (viewer: FeedViewer) => void): void {
    const set = this.viewers.get(endpointId);
    if (set) for (const viewer of set) fn(viewer);
  }
}
