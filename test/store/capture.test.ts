import { expect, it } from 'vitest';
import { insertCapturedEvents } from '../../src/store/capture.js';
import { describeEachDialect } from '../helpers/db.js';
import { capturedEvent } from '../helpers/events.js';

describeEachDialect('group-commit insert', (ctx) => {
  it('stores a batch whose bodies add up to more than one statement carries, byte for byte', async () => {
    const { store } = ctx;
    const user = await store.db
      .insertInto('users')
      .values({ email: 'big@example.com', password_hash: 'x', plan: 'free', created_at: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const endpoint = await store.db
      .insertInto('endpoints')
      .values({ user_id: user.id, name: 'big', token: 'big-bodies', is_active: 1, created_at: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const bodies = [
      Buffer.alloc(40 * 1024 * 1024, 0xab),
      Buffer.alloc(30 * 1024 * 1024, 0xcd),
      Buffer.from([0, 255, 1, 254]),
      Buffer.alloc(0),
    ];
    bodies[0]![123] = 0x01;
    const ids = await insertCapturedEvents(
      store,
      bodies.map((b, i) => capturedEvent(endpoint.id, user.id, 1_000_000 + i, b)),
    );
    expect(ids).toHaveLength(4);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    for (const [i, id] of ids.entries()) {
      const row = await store.db
        .selectFrom('events')
        .select(['body', 'size', 'received_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.received_at).toBe(1_000_000 + i);
      expect(Buffer.compare(row.body, bodies[i]!)).toBe(0);
    }
    const counters = await store.db
      .selectFrom('endpoints')
      .select(['events_total', 'last_event_at'])
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(counters).toEqual({ events_total: 4, last_event_at: 1_000_003 });
  });
});
