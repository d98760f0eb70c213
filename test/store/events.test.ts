import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { insertCapturedEvents } from '../../src/store/capture.js';
import type { Store } from '../../src/store/db.js';
import { createEndpoint } from '../../src/store/endpoints.js';
import { type EventCursor, listEvents } from '../../src/store/events.js';
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
});
