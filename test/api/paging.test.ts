import { expect, it } from 'vitest';
import { isoMicros } from '../../src/clock.js';
import { createEndpoint } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';
import { type ApiUser, apiUser, capturedEvent, storeEvents } from './client.js';

/** Follows `next` from `path` to the end; returns every id seen, in order. */
async function walk(user: ApiUser, path: string): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let next: string | null = path;
  let pages = 0;
  while (next !== null) {
    const answer = await user.get(next);
    expect(answer.status, next).toBe(200);
    expect(answer.body.results.length).toBeLessThanOrEqual(7);
    ids.push(...answer.body.results.map((e: { id: number }) => e.id));
    next = answer.body.next;
    pages += 1;
  }
  return { ids, pages };
}

describeService('REST API event paging', { manualClock: true }, (ctx) => {
  it('walks 450 events with many equal received_at values, each exactly once, newest first', async () => {
    const user = await apiUser(ctx.service);
    const a = await createEndpoint(user.session, 'a');
    const b = await createEndpoint(user.session, 'b');
    const t0 = ctx.clock!.nowMicros();
    // 30 distinct times for 450 events (15 share each on average), inserted in a
    // scrambled order so that id order and time order disagree.
    const plan = Array.from({ length: 450 }, (_, i) => ({
      endpoint: i % 3 === 0 ? b : a,
      at: t0 - ((i * 7919) % 30) * 1_000_000,
    }));
    const ids = await storeEvents(
      ctx.service,
      plan.map((p) => capturedEvent(p.endpoint.id, user.session.id, p.at)),
    );
    const expected = (endpointId: number | null) =>
      plan
        .map((p, i) => ({ id: ids[i]!, at: p.at, endpoint: p.endpoint.id }))
        .filter((e) => endpointId === null || e.endpoint === endpointId)
        .sort((x, y) => y.at - x.at || y.id - x.id)
        .map((e) => e.id);

    const all = await walk(user, '/api/v1/events/?limit=7');
    expect(all.ids).toEqual(expected(null));
    expect(new Set(all.ids).size).toBe(450);
    expect(all.pages).toBe(Math.ceil(450 / 7));

    ctx.clock!.advanceMs(60_000); // a fresh rate-limit budget for the second walk
    const ofA = await walk(user, `/api/v1/events/?endpoint=${a.id}&limit=7`);
    expect(ofA.ids).toEqual(expected(a.id));
    expect(ofA.ids).toHaveLength(300);
  });

  it('keeps the filter and limit in next, treats before as exclusive, and ends with next null', async () => {
    const user = await apiUser(ctx.service);
    const endpoint = await createEndpoint(user.session);
    const t0 = ctx.clock!.nowMicros();
    const times = [t0, t0, t0 - 1, t0 - 1, t0 - 2];
    const ids = await storeEvents(
      ctx.service,
      times.map((at) => capturedEvent(endpoint.id, user.session.id, at)),
    );

    const first = await user.get(`/api/v1/events/?endpoint=${endpoint.id}&limit=3&colour=red`);
    expect(first.body.results.map((e: { id: number }) => e.id)).toEqual([ids[1], ids[0], ids[3]]);
    const next = new URL(first.body.next);
    expect(next.origin + next.pathname).toBe(`${ctx.url}/api/v1/events/`);
    expect(Object.fromEntries(next.searchParams)).toEqual({
      endpoint: String(endpoint.id),
      limit: '3',
      before: isoMicros(t0 - 1),
      before_id: String(ids[3]),
    });
    const second = await user.get(first.body.next);
    expect(second.body.results.map((e: { id: number }) => e.id)).toEqual([ids[2], ids[4]]);
    expect(second.body.next).toBeNull();

    const before = await user.get(
      `/api/v1/events/?endpoint=${endpoint.id}&before=${encodeURIComponent(isoMicros(t0 - 1))}`,
    );
    expect(before.body.results.map((e: { id: number }) => e.id)).toEqual([ids[4]]);
    expect(before.body.next).toBeNull();

    const exact = await user.get(`/api/v1/events/?endpoint=${endpoint.id}&limit=5`);
    expect(exact.body.results).toHaveLength(5);
    expect(exact.body.next).toBeNull();
  });
});
