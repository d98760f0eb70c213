import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import { type Store, newPgClient } from './db.js';

/**
 * Wake-ups that cross instances: an endpoint changed (drop cached copies), attempts are
 * due (wake the delivery worker), events were captured or attempts finished (the live
 * feed). SQLite mode is one process, so an in-process emitter is the whole bus; on
 * PostgreSQL the same messages go through LISTEN/NOTIFY.
 */
export type BusChannel = 'endpoint_changed' | 'attempt_due' | 'event_captured' | 'attempt_updated';
const CHANNELS: readonly BusChannel[] = [
  'endpoint_changed',
  'attempt_due',
  'event_captured',
  'attempt_updated',
];

export interface BusMessage {
  channel: BusChannel;
  payload: string;
}

/** A message as PostgreSQL's `pg_notify(channel, payload)` carries it between instances. */
export interface PostgresNotice {
  channel: string;
  payload: string;
}

export interface Bus {
  publish(channel: BusChannel, payload: string): Promise<void>;
  /** Several messages at once: on PostgreSQL one statement instead of one per message. */
  publishAll(messages: readonly BusMessage[]): Promise<void>;
  /** Hands a message to this process's own subscribers only. */
  emitLocally(channel: BusChannel, payload: string): void;
  /**
   * The notices that carry these messages to the other instances, for a statement that
   * sends them itself, inside its own transaction (so they go out only if it commits).
   * None on SQLite, where this process is the only one.
   */
  noticesFor(messages: readonly BusMessage[]): PostgresNotice[];
  subscribe(channel: BusChannel, listener: (payload: string) => void): () => void;
  /** Called after the bus lost and regained its connection: messages may have been missed. */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}

class LocalBus implements Bus {
  protected readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: BusChannel, payload: string): Promise<void> {
    await this.publishAll([{ channel, payload }]);
  }

  async publishAll(messages: readonly BusMessage[]): Promise<void> {
    for (const { channel, payload } of messages) this.emitLocally(channel, payload);
  }

  emitLocally(channel: BusChannel, payload: string): void {
    this.emitter.emit(channel, payload);
  }

  noticesFor(_messages: readonly BusMessage[]): PostgresNotice[] {
    return [];
  }

  subscribe(channel: BusChannel, listener: (payload: string) => void): () => void {
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }

  onReconnect(listener: () => void): () => void {
    this.emitter.on('reconnect', listener);
    return () => this.emitter.off('reconnect', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

const PREFIX = 'hookwatch_';

class PostgresBus extends LocalBus {
  private readonly instance = randomBytes(6).toString('hex');
  private client: pg.Client | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    private readonly onError: (error: Error) => void,
  ) {
    super();
  }

  async connect(): Promise<void> {
    const client = newPgClient(this.store.url);
    client.on('notification', (message) => {
      const channel = message.channel.slice(PREFIX.length) as BusChannel;
      const text = message.payload ?? '';
      const bar = text.indexOf('|');
      // Our own messages were already delivered locally when published.
      if (text.slice(0, bar) === this.instance) return;
      this.emitter.emit(channel, text.slice(bar + 1));
    });
    client.on('error', (error) => {
      this.onError(error);
      this.reconnectLater(client);
    });
    client.on('end', () => this.reconnectLater(client));
    await client.connect();
    for (const channel of CHANNELS) await client.query(`listen ${PREFIX}${channel}`);
    this.client = client;
  }

  private reconnectLater(dead: pg.Client): void {
    if (this.closed || this.client !== dead) return;
    this.client = null;
    dead.end().catch(() => {});
    const attempt = (delay: number) => {
      this.retryTimer = setTimeout(() => {
        this.connect().then(
          () => this.emitter.emit('reconnect'),
          (error: Error) => {
            this.onError(error);
            attempt(Math.min(delay * 2, 5000));
          },
        );
      }, delay);
      this.retryTimer.unref();
    };
    attempt(100);
  }

  override noticesFor(messages: readonly BusMessage[]): PostgresNotice[] {
    return messages.map(({ channel, payload }) => ({
      channel: PREFIX + channel,
      payload: `${this.instance}|${payload}`,
    }));
  }

  override async publishAll(messages: readonly BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await super.publishAll(messages);
    const notices = this.noticesFor(messages);
    // unnest yields its rows in array order, so the notices go out in the order given.
    await sql`select pg_notify(channel, payload) from unnest(
        ${notices.map((n) => n.channel)}::text[], ${notices.map((n) => n.payload)}::text[]
      ) as notice(channel, payload)`.execute(this.store.db);
  }

  override async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
    await super.close();
  }
}

export async function openBus(store: Store, onError: (error: Error) => void): Promise<Bus> {
  if (store.dialect === 'sqlite') return new LocalBus();
  const bus = new PostgresBus(store, onError);
  await bus.connect();
  return bus;
}
