import type { Logger } from 'pino';
import type { Bus } from '../store/bus.js';

const COALESCE_MS = 5;

/**
 * `attempt_updated` messages for the live feed (payload `<endpointId>:<eventId>`), sent
 * after every attempt state change. Changes of the same event within a few milliseconds
 * (claimed, then finished) go out as one message — a viewer re-reads the event anyway —
 * and messages go out one at a time: at thousands of deliveries a second each is a
 * NOTIFY on PostgreSQL, and a burst of them would take every pooled connection and make
 * claims and results wait.
 */
export class AttemptUpdates {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  changed(endpointId: number, eventId: number): void {
    this.pending.add(`${endpointId}:${eventId}`);
    this.timer ??= setTimeout(() => void this.flush(), COALESCE_MS);
  }

  /** Sends everything pending; resolves when it is out. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sending ??= this.send().finally(() => {
      this.sending = null;
    });
    await this.sending;
  }

  private async send(): Promise<void> {
    while (this.pending.size > 0) {
      const [payload] = this.pending;
      this.pending.delete(payload!);
      await this.bus
        .publish('attempt_updated', payload!)
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'could not publish attempt_updated'),
        );
    }
  }
}
