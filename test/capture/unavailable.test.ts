import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { createEndpoint, signUp } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';

describeService('capture when the database cannot commit', {}, (ctx) => {
  it('answers 503 with Retry-After: 5, never a 200 for a request that was not kept', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    const send = () => fetch(`${ctx.url}/i/${endpoint.token}`, { method: 'POST', body: 'payload' });
    expect((await send()).status).toBe(200);

    const db = ctx.service.services.store.db;
    await sql`alter table events rename to events_away`.execute(db);
    try {
      const refused = await send();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as { error: string }).error).toBe('unavailable');
    } finally {
      await sql`alter table events_away rename to events`.execute(db);
    }
    expect((await send()).status).toBe(200);
    const listed = await session.call('GET', `/app/api/endpoints/${endpoint.id}`);
    expect(listed.body.events_total).toBe(2);
  });
});
