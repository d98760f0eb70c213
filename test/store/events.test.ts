import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertCapturedEvents } from '../../src/store/capture.js';
import type { Store } from '../../src/store/db.js';
import { createEndpoint } from '../../src/store/endpoints.js';
import {
  type EventCursor,
  type EventFilter,
  listEvents,
  listFilteredEvents,
} from '../../src/store/events.js';
import { createUser } from '../../src/store/users.js';
import { describeEachDialect } from '../helpers/db.js';
import { capturedEvent, storedIds } from '../helpers/events.js';

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0) * 1000;

async function userWithEndpoints(store: Store, count: number) {
  const user = await createUser(store, {
    email: `list-${randomBytes(4).toString('hex')}@example.com`,
    passwordHash: 'x',
    plan: 'startup',
    now: T0,
  });
  const endpoints: number[] = [];
  for (let i = 0; i < count; i++) {
    const endpoint = await createEndpoint(store, {
      userId: user!.id,
      name: `list ${i}`,
      token: randomBytes(12).toString('hex'),
      now: T0,
    });
    endpoints.push(endpoint.id);
  }
  return { userId: user!.id, endpoints };
}

describeEachDialect('event lists', (ctx) => {
  it("pages through all of a user's endpoints newest first, ties by id, no one else's", async () => {
    const mine = await userWithEndpoints(ctx.store, 3);
    const theirs = await userWithEndpoints(ctx.store, 1);
    // 12 distinct times for 90 events over three endpoints (one of them idle), stored in
    // a scrambled order so that id order and time order disagree.
    const plan = Array.from({ length: 90 }, (_, i) => ({
      endpoint: mine.endpoints[i % 2]!,
      at: T0 - ((i * 7919) % 12) * 1000,
    }));
    const ids = storedIds(
      await insertCapturedEvents(
        ctx.store,
        plan.map((p) => capturedEvent(p.endpoint, mine.userId, p.at)),
      ),
    );
    await insertCapturedEvents(ctx.store, [
      capturedEvent(theirs.endpoints[0]!, theirs.userId, T0 + 5),
    ]);
    const expected = plan
      .map((p, i) => ({ id: ids[i]!, at: p.at }))
      .sort((x, y) => y.at - x.at || y.id - x.id);

    const seen: number[] = [];
    let before: EventCursor | null = null;
    for (;;) {
      const page = await listEvents(ctx.store, { userId: mine.userId, limit: 8, before });
      seen.push(...page.map((e) => e.id));
      if (page.length < 8) break;
      const last = page[page.length - 1]!;
      before = { receivedAt: last.received_at, id: last.id };
    }
    expect(seen).toEqual(expected.map((e) => e.id));

    // `before` alone is exclusive of its own time, across endpoints too.
    const cut = T0 - 6000;
    const older = await listEvents(ctx.store, {
      userId: mine.userId,
      limit: 200,
      before: { receivedAt: cut, id: null },
    });
    expect(older.map((e) => e.id)).toEqual(expected.filter((e) => e.at < cut).map((e) => e.id));
  });

  describe('filtered by method and signature', () => {
    const METHODS = ['POST', 'GET', 'PUT'];
    const LABELS = ['valid', 'invalid', null] as const;

    /** Walks a filtered list as the dashboard route pages it; every id in order. */
    async function walk(
      userId: number,
      endpointId: number,
      filter: EventFilter,
      limit: number,
      scanRows: number,
    ): Promise<{ ids: number[]; pages: number[][] }> {
      const pages: number[][] = [];
      let before: EventCursor | null = null;
      for (;;) {
        const { rows, scannedTo } = await listFilteredEvents(ctx.store, {
          userId,
          endpointId,
          limit,
          before,
          filter,
          scanRows,
        });
        pages.push(rows.map((e) => e.id));
        const last = rows[rows.length - 1];
        if (rows.length === limit) before = { receivedAt: last!.received_at, id: last!.id };
        else if (scannedTo) before = scannedTo;
        else break;
      }
      return { ids: pages.flat(), pages };
    }

    it('finds every match once, newest first, reading at most scanRows events a page', async () => {
      const mine = await userWithEndpoints(ctx.store, 2);
      const theirs = await userWithEndpoints(ctx.store, 1);
      // 9 distinct times for 70 events (many ties), id order and time order disagreeing.
      const plan = Array.from({ length: 70 }, (_, i) => ({
        endpoint: mine.endpoints[i % 5 === 0 ? 1 : 0]!,
        at: T0 - ((i * 7919) % 9) * 1000,
        method: METHODS[i % 3]!,
        signature: LABELS[(i >> 1) % 3]!,
      }));
      const ids = storedIds(
        await insertCapturedEvents(
          ctx.store,
          plan.map((p) =>
            capturedEvent(p.endpoint, mine.userId, p.at, 'x', {
              method: p.method,
              signature: p.signature,
              signatureReason: p.signature === 'invalid' ? 'mismatch' : null,
            }),
          ),
        ),
      );
      // Another user's matching events on an endpoint with a lower and a higher id.
      await insertCapturedEvents(
        ctx.store,
        [T0, T0 - 1000].map((at) =>
          capturedEvent(theirs.endpoints[0]!, theirs.userId, at, 'x', { signature: 'invalid' }),
        ),
      );
      const expected = (filter: EventFilter) =>
        plan
          .map((p, i) => ({ ...p, id: ids[i]! }))
          .filter(
            (e) =>
              e.endpoint === mine.endpoints[0] &&
              (filter.method === null || e.method === filter.method) &&
              (filter.signature === null ||
                (filter.signature === 'none'
                  ? e.signature === null
                  : e.signature === filter.signature)),
          )
          .sort((x, y) => y.at - x.at || y.id - x.id)
          .map((e) => e.id);

      const filters: EventFilter[] = [
        { method: 'POST', signature: null },
        { method: null, signature: 'invalid' },
        { method: null, signature: 'none' },
        { method: 'PUT', signature: 'valid' },
        { method: 'DELETE', signature: null },
      ];
      for (const filter of filters) {
        for (const [limit, scanRows] of [
          [3, 7],
          [50, 5000],
          [2, 1],
        ] as const) {
          const walked = await walk(mine.userId, mine.endpoints[0]!, filter, limit, scanRows);
          expect(walked.ids, JSON.stringify({ filter, limit, scanRows })).toEqual(expected(filter));
          // No page holds more than it may have read.
          for (const page of walked.pages)
            expect(page.length).toBeLessThanOrEqual(Math.min(limit, scanRows));
        }
      }
      expect(expected({ method: 'DELETE', signature: null })).toEqual([]);
    });

    it('stops a page where its reading stopped, even with no match in it', async () => {
      const mine = await userWithEndpoints(ctx.store, 1);
      const endpoint = mine.endpoints[0]!;
      const ids = storedIds(
        await insertCapturedEvents(
          ctx.store,
          Array.from({ length: 12 }, (_, i) =>
            capturedEvent(endpoint, mine.userId, T0 + i, 'x', {
              method: i === 0 ? 'DELETE' : 'POST',
            }),
          ),
        ),
      );
      const filter: EventFilter = { method: 'DELETE', signature: null };
      const first = await listFilteredEvents(ctx.store, {
        userId: mine.userId,
        endpointId: endpoint,
        limit: 10,
        before: null,
        filter,
        scanRows: 5,
      });
      // Read the newest five (T0+11 … T0+7): nothing matched, and the page says where it stopped.
      expect(first.rows).toEqual([]);
      expect(first.scannedTo).toEqual({ receivedAt: T0 + 7, id: ids[7] });
      const rest = await walk(mine.userId, endpoint, filter, 10, 5);
      expect(rest.ids).toEqual([ids[0]]);
      expect(rest.pages).toEqual([[], [], [ids[0]]]);
    });
  });
});
