import { expect, it } from 'vitest';
import { createEndpoint, signUp } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';

describeService('retention', { manualClock: true, env: { RETENTION_DAYS: '1' } }, (ctx) => {
  it('removes events older than RETENTION_DAYS with their pending retries, and keeps newer ones', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    // Forwarding to a port nobody listens on: attempt 1 is queued with the old event.
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      forwarding: 'http://127.0.0.1:9/hook',
    });
    const send = async (body: string) =>
      (
        (await (
          await fetch(`${ctx.url}/i/${endpoint.token}`, { method: 'POST', body })
        ).json()) as { event_id: number }
      ).event_id;
    const old = await send('old');
    ctx.clock!.advanceMs(36 * 3600 * 1000);
    const recent = await send('recent');

    const sweeper = ctx.service.loops.find((l) => l.name === 'retention') as unknown as {
      sweep(): Promise<number>;
    };
    expect(await sweeper.sweep()).toBe(1);

    expect((await session.call('GET', `/app/api/events/${old}`)).status).toBe(404);
    expect((await session.call('GET', `/app/api/events/${recent}`)).status).toBe(200);
    const attempts = await ctx.service.services.store.db
      .selectFrom('attempts')
      .select(['event_id'])
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(attempts.map((a) => a.event_id)).not.toContain(old);
  });
});

// With RETENTION_DAYS=0 events stay forever, but sessions past their 30 days still go.
describeService('expired sessions', { manualClock: true, env: { RETENTION_DAYS: '0' } }, (ctx) => {
  it('are removed by the sweep while live ones keep working', async () => {
    const expired = await signUp(ctx.url);
    ctx.clock!.advanceMs(31 * 24 * 3600 * 1000);
    const live = await signUp(ctx.url);
    const rows = () =>
      ctx.service.services.store.db
        .selectFrom('sessions')
        .select('user_id')
        .orderBy('user_id')
        .execute();
    expect((await rows()).map((r) => r.user_id)).toEqual([expired.id, live.id]);

    const sweeper = ctx.service.loops.find((l) => l.name === 'retention') as unknown as {
      sweep(): Promise<number>;
    };
    expect(await sweeper.sweep()).toBe(0); // no events were due: retention is off

    expect((await rows()).map((r) => r.user_id)).toEqual([live.id]);
    expect((await live.call('GET', '/app/api/me')).status).toBe(200);
    expect((await expired.call('GET', '/app/api/me')).status).toBe(401);
  });
});
