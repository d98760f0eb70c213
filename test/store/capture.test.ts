import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { lockEndpointsAgainstDeletion } from '../../src/store/attempts/record.js';
import { insertCapturedEvents } from '../../src/store/capture.js';
import { type Store, writeTransaction } from '../../src/store/db.js';
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

  it('gives each event of a 45-event batch its own id, row and first attempt', async () => {
    const { store } = ctx;
    const { userId, endpointIds } = await userWithEndpoints(store, 'many@example.com', [
      'many-a',
      'many-b',
      'many-gone',
    ]);
    const [a, b, gone] = endpointIds as [number, number, number];
    await store.db.deleteFrom('endpoints').where('id', '=', gone).execute();
    // Every fifth event is of the deleted endpoint, every third is forwarded.
    const items = Array.from({ length: 45 }, (_, i) =>
      capturedEvent(i % 5 === 4 ? gone : i % 2 === 0 ? a : b, userId, 5_000 + i, `body ${i}`, {
        ...(i % 3 === 0 ? { forwardStatus: 'pending', firstAttemptUrl: `http://x.test/${i}` } : {}),
      }),
    );
    const ids = await insertCapturedEvents(store, items);
    expect(ids.map((id) => id === null)).toEqual(items.map((_, i) => i % 5 === 4));
    const stored = ids.filter((id): id is number => id !== null);
    expect(new Set(stored).size).toBe(36);
    for (const [i, id] of ids.entries()) {
      if (id === null) continue;
      const row = await store.db
        .selectFrom('events')
        .select(['endpoint_id', 'body', 'received_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.endpoint_id).toBe(items[i]!.endpointId);
      expect(row.received_at).toBe(5_000 + i);
      expect(Buffer.from(row.body).toString()).toBe(`body ${i}`);
      const attempts = await store.db
        .selectFrom('attempts')
        .select('target_url')
        .where('event_id', '=', id)
        .execute();
      expect(attempts.map((r) => r.target_url)).toEqual(i % 3 === 0 ? [`http://x.test/${i}`] : []);
    }
    const totals = await store.db
      .selectFrom('endpoints')
      .select(['id', 'events_total'])
      .where('id', 'in', [a, b])
      .orderBy('id')
      .execute();
    expect(totals).toEqual([
      { id: a, events_total: 18 },
      { id: b, events_total: 18 },
    ]);
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

  /** Whether another session of this database is waiting for a row lock (within 2 s). */
  async function aSessionWaitsOnALock(store: Store): Promise<boolean> {
    for (let i = 0; i < 100; i++) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and datname = current_database()`.execute(store.db);
      if (rows[0]!.n > 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  }

  it.skipIf(ctx.dialect === 'sqlite')(
    "a delivery results transaction holds off its endpoint's deletion, but not its captures",
    async () => {
      const { store } = ctx;
      const { userId, endpointIds } = await userWithEndpoints(store, 'locks@example.com', ['busy']);
      const [endpoint] = endpointIds as [number];
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const results = writeTransaction(store, async (trx) => {
        await lockEndpointsAgainstDeletion(store, trx, [endpoint]);
        locked();
        await released;
      });
      await isLocked;
      let deletion: Promise<boolean> | null = null;
      try {
        // A capture batch on the endpoint commits while the results transaction is open.
        const capture = insertCapturedEvents(store, [capturedEvent(endpoint, userId, 1, 'a')]);
        const waited = new Promise<'still waiting'>((resolve) =>
          setTimeout(() => resolve('still waiting'), 3000),
        );
        const ids = await Promise.race([capture, waited]);
        expect(ids).not.toBe('still waiting');
        expect(storedIds(ids as Array<number | null>)).toHaveLength(1);

        // The endpoint's deletion waits for the results transaction to end.
        let settled = false;
        deletion = deleteEndpoint(store, userId, endpoint).finally(() => (settled = true));
        expect(await aSessionWaitsOnALock(store)).toBe(true);
        expect(settled).toBe(false);
      } finally {
        release();
      }
      await results;
      expect(await deletion).toBe(true);
      expect(await countWhere(store, 'events', endpoint)).toBe(0);
    },
  );
});
