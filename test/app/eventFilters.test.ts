import { expect, it } from 'vitest';
import { FILTER_SCAN_ROWS } from '../../src/store/events.js';
import { capturedEvent, storedIds } from '../helpers/events.js';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';
import { insertCapturedEvents } from '../../src/store/capture.js';

/** Follows `next` from `path` to the end; each page's ids. */
async function walk(session: Session, path: string): Promise<number[][]> {
  const pages: number[][] = [];
  let next: string | null = path;
  while (next !== null) {
    const answer = await session.call('GET', next.replace(/^https?:\/\/[^/]+/, ''));
    expect(answer.status, next).toBe(200);
    pages.push(answer.body.results.map((e: { id: number }) => e.id));
    next = answer.body.next;
  }
  return pages;
}

describeService('filtering an endpoint’s requests in the dashboard API', {}, (ctx) => {
  it('filters by method in any case and by signature label, and keeps the filter in next', async () => {
    const alice = await signUp(ctx.url);
    const endpoint = await createEndpoint(alice);
    const t0 = Date.now() * 1000;
    const plan = Array.from({ length: 30 }, (_, i) => ({
      method: i % 3 === 0 ? 'GET' : 'POST',
      signature: (['valid', 'invalid', null] as const)[i % 5 === 0 ? 1 : i % 2 === 0 ? 0 : 2],
    }));
    const ids = storedIds(
      await insertCapturedEvents(
        ctx.service.services.store,
        plan.map((p, i) =>
          capturedEvent(endpoint.id, alice.id, t0 + i, 'x', {
            method: p.method,
            signature: p.signature,
            signatureReason: p.signature === 'invalid' ? 'mismatch' : null,
          }),
        ),
      ),
    );
    const newestFirst = (keep: (p: (typeof plan)[number]) => boolean) =>
      plan
        .map((p, i) => ({ p, id: ids[i]! }))
        .filter(({ p }) => keep(p))
        .map(({ id }) => id)
        .reverse();

    const gets = await walk(alice, `/app/api/endpoints/${endpoint.id}/events?method=get&limit=4`);
    expect(gets.flat()).toEqual(newestFirst((p) => p.method === 'GET'));
    expect(gets.slice(0, -1).every((page) => page.length === 4)).toBe(true);

    const first = await alice.call(
      'GET',
      `/app/api/endpoints/${endpoint.id}/events?signature=invalid&method=POST&limit=2`,
    );
    const next = new URL(first.body.next);
    expect(Object.fromEntries(next.searchParams)).toMatchObject({
      method: 'POST',
      signature: 'invalid',
      limit: '2',
    });
    const invalidPosts = await walk(
      alice,
      `/app/api/endpoints/${endpoint.id}/events?signature=invalid&method=POST&limit=2`,
    );
    expect(invalidPosts.flat()).toEqual(
      newestFirst((p) => p.method === 'POST' && p.signature === 'invalid'),
    );
    const unchecked = await walk(alice, `/app/api/endpoints/${endpoint.id}/events?signature=none`);
    expect(unchecked.flat()).toEqual(newestFirst((p) => p.signature === null));
  });

  it('finds a match older than one page’s reading by following next through empty pages', async () => {
    const alice = await signUp(ctx.url);
    const endpoint = await createEndpoint(alice);
    const t0 = Date.now() * 1000;
    const total = FILTER_SCAN_ROWS + 40;
    // The oldest event alone was sent with DELETE.
    const ids = storedIds(
      await insertCapturedEvents(
        ctx.service.services.store,
        Array.from({ length: total }, (_, i) =>
          capturedEvent(endpoint.id, alice.id, t0 + i, 'x', {
            method: i === 0 ? 'DELETE' : 'POST',
          }),
        ),
      ),
    );
    const pages = await walk(alice, `/app/api/endpoints/${endpoint.id}/events?method=DELETE`);
    expect(pages).toEqual([[], [ids[0]]]);
  });

  it('refuses a malformed filter with 400 naming it', async () => {
    const alice = await signUp(ctx.url);
    const endpoint = await createEndpoint(alice);
    const base = `/app/api/endpoints/${endpoint.id}/events`;
    for (const [query, field] of [
      ['method=P%20OST', 'method'],
      ['method=', 'method'],
      ['method=GET&method=POST', 'method'],
      ['signature=maybe', 'signature'],
      ['signature=VALID', 'signature'],
    ] as const) {
      const answer = await alice.call('GET', `${base}?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error).toBe('invalid_request');
      expect(answer.body.detail, query).toMatch(new RegExp(`^${field}: `));
    }
  });

  it('never shows another user’s requests through a filter', async () => {
    const alice = await signUp(ctx.url);
    const bob = await signUp(ctx.url);
    const endpoint = await createEndpoint(alice);
    await insertCapturedEvents(ctx.service.services.store, [
      capturedEvent(endpoint.id, alice.id, Date.now() * 1000),
    ]);
    const answer = await bob.call('GET', `/app/api/endpoints/${endpoint.id}/events?method=POST`);
    expect(answer.status).toBe(404);
  });
});
