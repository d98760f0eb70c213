import { expect, it } from 'vitest';
import { insertCapturedEvents } from '../../src/store/capture.js';
import type { Store } from '../../src/store/db.js';
import { deleteEndpoint } from '../../src/store/endpoints.js';
import { describeEachDialect } from '../helpers/db.js';
import { capturedEvent, storedIds } from '../helpers/events.js';

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
    const ids = storedIds(
      await insertCapturedEvents(
        store,
        bodies.map((b, i) => capturedEvent(endpoint.id, user.id, 1_000_000 + i, b)),
      ),
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

  async function userWithEndpoints(store: Store, email: string, tokens: string[]) {
    const user = await store.db
      .insertInto('users')
      .values({ email, password_hash: 'x', plan: 'free', created_at: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const endpoints = [];
    for (const token of tokens) {
      endpoints.push(
        await store.db
          .insertInto('endpoints')
          .values({ user_id: user.id, name: token, token, is_active: 1, created_at: 1 })
          .returning('id')
          .executeTakeFirstOrThrow(),
      );
    }
    return { userId: user.id, endpointIds: endpoints.map((e) => e.id) };
  }

  const countWhere = async (store: Store, table: 'events' | 'attempts', endpointId: number) =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('endpoint_id', '=', endpointId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('stores the rest of a batch when an endpoint in it was deleted meanwhile', async () => {
    const { store } = ctx;
    const { userId, endpointIds } = await userWithEndpoints(store, 'gone@example.com', [
      'stays',
      'goes',
    ]);
    const [stays, goes] = endpointIds as [number, number];
    await store.db.deleteFrom('endpoints').where('id', '=', goes).execute();
    const forwarded = { forwardStatus: 'pending' as const, firstAttemptUrl: 'http://x.test/' };
    const ids = await insertCapturedEvents(store, [
      capturedEvent(stays, userId, 10, 'a', forwarded),
      capturedEvent(goes, userId, 11, 'b', forwarded),
      capturedEvent(stays, userId, 12, 'c'),
    ]);
    expect(ids[1]).toBeNull();
    expect(ids[0]).toBeGreaterThan(0);
    expect(ids[2]).toBeGreaterThan(ids[0]!);
    expect(await countWhere(store, 'events', goes)).toBe(0);
    expect(await countWhere(store, 'attempts', goes)).toBe(0);
    expect(await countWhere(store, 'events', stays)).toBe(2);
    expect(await countWhere(store, 'attempts', stays)).toBe(1);
    const endpoint = await store.db
      .selectFrom('endpoints')
      .select(['events_total', 'last_event_at'])
      .where('id', '=', stays)
      .executeTakeFirstOrThrow();
    expect(endpoint).toEqual({ events_total: 2, last_event_at: 12 });
  });

  it('deletes an endpoint with its events and their attempts, and nothing of another', async () => {
    const { store } = ctx;
    const { userId, endpointIds } = await userWithEndpoints(store, 'del@example.com', [
      'doomed',
      'kept',
    ]);
    const [doomed, kept] = endpointIds as [number, number];
    const forwarded = { forwardStatus: 'pending' as const, firstAttemptUrl: 'http://x.test/' };
    storedIds(
      await insertCapturedEvents(store, [
        capturedEvent(doomed, userId, 1, 'a', forwarded),
        capturedEvent(doomed, userId, 2, 'b'),
        capturedEvent(kept, userId, 3, 'c', forwarded),
      ]),
    );
    expect(await deleteEndpoint(store, userId + 1, doomed)).toBe(false);
    expect(await deleteEndpoint(store, userId, doomed)).toBe(true);
    expect(await deleteEndpoint(store, userId, doomed)).toBe(false);
    expect(await countWhere(store, 'events', doomed)).toBe(0);
    expect(await countWhere(store, 'attempts', doomed)).toBe(0);
    expect(await countWhere(store, 'events', kept)).toBe(1);
    expect(await countWhere(store, 'attempts', kept)).toBe(1);
  });
});
