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
