import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { registerStreamRoutes } from '../../src/app/stream.js';
import { installErrorHandler } from '../../src/http/errors.js';
import { createTestDatabase } from '../helpers/db.js';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { describeService, startTestService } from '../helpers/service.js';
import { openSse, type SseClient } from '../helpers/sse.js';

async function capture(baseUrl: string, token: string, body = '{"n":1}'): Promise<number> {
  const response = await fetch(`${baseUrl}/i/${token}/deep?a=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { event_id: number }).event_id;
}

function stream(
  baseUrl: string,
  session: Session,
  endpointId: number,
  options: { lastEventId?: number; after?: number } = {},
): Promise<SseClient> {
  const headers: Record<string, string> = { cookie: session.cookie };
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  const query = options.after === undefined ? '' : `?after=${options.after}`;
  return openSse(`${baseUrl}/app/api/endpoints/${endpointId}/stream${query}`, headers);
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(check()).toBe(true);
}

describeService('the live feed', {}, (ctx) => {
  it('sends a request captured after the stream opened, with its id, and nothing older', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    const before = await capture(ctx.url, endpoint.token, '{"old":true}');
    const sse = await stream(ctx.url, session, endpoint.id);
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(sse.headers.get('cache-control')).toContain('no-cache');

    const id = await capture(ctx.url, endpoint.token);
    const message = await sse.next('captured');
    sse.close();
    expect(message.id).toBe(String(id));
    expect(id).toBeGreaterThan(before);
    expect(JSON.parse(message.data)).toMatchObject({
      id,
      endpoint: endpoint.id,
      method: 'POST',
      path: '/deep',
      size: 7,
      content_type: 'application/json',
      signature: null,
      forward_status: null,
      attempts: 0,
    });
  });

  it('catches up from Last-Event-ID after a reconnect, in order', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await capture(ctx.url, endpoint.token, `{"i":${i}}`));
    const sse = await stream(ctx.url, session, endpoint.id, { lastEventId: ids[1] });
    const first = await sse.next('captured');
    const second = await sse.next('captured');
    sse.close();
    expect([first.id, second.id]).toEqual([String(ids[2]), String(ids[3])]);
  });

  it('starts after ?after=, and a Last-Event-ID from a reconnect wins over it', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    const a = await capture(ctx.url, endpoint.token);
    const b = await capture(ctx.url, endpoint.token);
    const fromAfter = await stream(ctx.url, session, endpoint.id, { after: a });
    expect((await fromAfter.next('captured')).id).toBe(String(b));
    fromAfter.close();

    const both = await stream(ctx.url, session, endpoint.id, { after: 0, lastEventId: a });
    expect((await both.next('captured')).id).toBe(String(b));
    both.close();
  });

  it('tells the browser to reload when it missed more than a page', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    const captures = [];
    for (let i = 0; i < 201; i++) captures.push(capture(ctx.url, endpoint.token));
    const ids = await Promise.all(captures);
    const sse = await stream(ctx.url, session, endpoint.id, { lastEventId: 0 });
    const reset = await sse.next();
    sse.close();
    expect(reset.event).toBe('reset');
    expect(reset.id).toBe(String(Math.max(...ids)));
    expect(JSON.parse(reset.data)).toEqual({ reason: 'too_many_missed' });
  });

  it('sends the updated summary when an attempt of one of its events changes', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    const other = await createEndpoint(session, 'Other');
    const id = await capture(ctx.url, endpoint.token);
    const otherId = await capture(ctx.url, other.token);
    const sse = await stream(ctx.url, session, endpoint.id);
    const { bus } = ctx.service.services;
    await bus.publish('attempt_updated', `${other.id}:${otherId}`);
    await bus.publish('attempt_updated', `${endpoint.id}:${id}`);
    const message = await sse.next();
    sse.close();
    expect(message.event).toBe('attempt');
    expect(message.id).toBeUndefined();
    expect(JSON.parse(message.data)).toMatchObject({ id, endpoint: endpoint.id });
  });

  it("refuses a stream without a session, of another user's endpoint, or with a bad cursor", async () => {
    const alice = await signUp(ctx.url);
    const bob = await signUp(ctx.url);
    const endpoint = await createEndpoint(alice);
    const path = `${ctx.url}/app/api/endpoints/${endpoint.id}/stream`;
    expect((await openSse(path, {})).status).toBe(401);
    const foreign = await openSse(path, { cookie: bob.cookie });
    expect(foreign.status).toBe(404);
    const bad = await openSse(path, { cookie: alice.cookie, 'last-event-id': 'abc' });
    expect(bad.status).toBe(400);
    const badAfter = await openSse(`${path}?after=-1`, { cookie: alice.cookie });
    expect(badAfter.status).toBe(400);
  });

  // SQLite mode is one process: instances share a bus only on PostgreSQL.
  it.skipIf(ctx.dialect === 'sqlite')('reaches a viewer on another instance', async () => {
    const second = await startTestService(ctx.database);
    try {
      const session = await signUp(ctx.url);
      const endpoint = await createEndpoint(session);
      const sse = await stream(second.url, session, endpoint.id);
      const id = await capture(ctx.url, endpoint.token);
      expect((await sse.next('captured')).id).toBe(String(id));
      await ctx.service.services.bus.publish('attempt_updated', `${endpoint.id}:${id}`);
      expect(JSON.parse((await sse.next('attempt')).data).id).toBe(id);
      sse.close();
    } finally {
      await second.stop();
    }
  });

  it.skipIf(ctx.dialect === 'sqlite')(
    'still sends an event that committed after a newer one (two instances capturing)',
    async () => {
      const session = await signUp(ctx.url);
      const endpoint = await createEndpoint(session);
      const sse = await stream(ctx.url, session, endpoint.id);
      const { store, bus } = ctx.service.services;
      // Another instance's batch draws its id from the sequence, then commits after a
      // batch that drew a higher id (capture takes ids before it locks the endpoint row).
      const drawn = await sql<{
        id: string;
      }>`select nextval(pg_get_serial_sequence('events', 'id')) as id`.execute(store.db);
      const lateId = Number(drawn.rows[0]!.id);
      const newer = await capture(ctx.url, endpoint.token);
      expect(newer).toBeGreaterThan(lateId);
      expect((await sse.next('captured')).id).toBe(String(newer));
      await store.db
        .insertInto('events')
        .values({
          id: lateId,
          endpoint_id: endpoint.id,
          user_id: session.id,
          method: 'PUT',
          path: '',
          query_string: '',
          headers: '[]',
          body: Buffer.from('late'),
          size: 4,
          content_type: null,
          source_ip: '127.0.0.1',
          received_at: Date.now() * 1000,
          truncated: 0,
          signature: null,
          signature_reason: null,
          signature_key: null,
          forward_status: null,
        })
        .execute();
      await bus.publish('event_captured', String(endpoint.id));
      const message = await sse.next('captured');
      sse.close();
      expect(JSON.parse(message.data)).toMatchObject({ id: lateId, method: 'PUT' });
      // The browser's Last-Event-ID stays at the newest id.
      expect(message.id).toBeUndefined();
    },
  );

  it('beats to keep proxies open and ends the stream once the session is gone', async () => {
    const app = Fastify();
    installErrorHandler(app);
    await app.register(cookie);
    await app.register(
      async (scope) => registerStreamRoutes(scope, ctx.service.services, { heartbeatMs: 30 }),
      { prefix: '/app/api' },
    );
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const session = await signUp(ctx.url);
      const endpoint = await createEndpoint(session);
      const sse = await stream(base, session, endpoint.id);
      expect(sse.status).toBe(200);
      await until(() => sse.comments.includes('ping'));
      expect((await session.call('POST', '/app/api/logout')).status).toBe(204);
      await sse.ended;
    } finally {
      await app.close();
    }
  });
});

describeService('stopping with open streams', {}, (ctx) => {
  it('ends every stream and stops without waiting for the viewers', async () => {
    const database = await createTestDatabase(ctx.dialect);
    const service = await startTestService(database);
    const session = await signUp(service.url);
    const endpoint = await createEndpoint(session);
    const streams = [
      await stream(service.url, session, endpoint.id),
      await stream(service.url, session, endpoint.id),
    ];
    await service.stop();
    await Promise.all(streams.map((s) => s.ended));
    await database.drop();
  }, 20_000);
});
