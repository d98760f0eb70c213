import { expect, it } from 'vitest';
import type { RunningService } from '../../src/service.js';
import { createEndpoint } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';
import { type ApiUser, apiUser, capturedEvent, storeEvents } from './client.js';

interface Tenant {
  name: string;
  user: ApiUser;
  endpointIds: number[];
  eventIds: number[];
}

async function tenant(service: RunningService, name: string): Promise<Tenant> {
  const user = await apiUser(service);
  const endpointIds: number[] = [];
  const eventIds: number[] = [];
  for (const label of ['one', 'two']) {
    const endpoint = await createEndpoint(user.session, `${name} ${label}`);
    endpointIds.push(endpoint.id);
    const at = Date.UTC(2026, 10, 22) * 1000;
    eventIds.push(
      ...(await storeEvents(
        service,
        [0, 1, 2].map((i) =>
          capturedEvent(endpoint.id, user.session.id, at + i, `${name} ${label} ${i}`),
        ),
      )),
    );
  }
  return { name, user, endpointIds, eventIds };
}

const idsOf = (answer: { body: { results: Array<{ id: number }> } }) =>
  answer.body.results.map((r) => r.id).sort((a, b) => a - b);

describeService('REST API isolation between users', {}, (ctx) => {
  it('shows each user only their own endpoints and events, through every route and filter', async () => {
    const alice = await tenant(ctx.service, 'alice');
    const bob = await tenant(ctx.service, 'bob');

    for (const [me, them] of [
      [alice, bob],
      [bob, alice],
    ] as const) {
      const endpoints = await me.user.get('/api/v1/endpoints/');
      expect(endpoints.body.count).toBe(2);
      expect(idsOf(endpoints)).toEqual([...me.endpointIds].sort((a, b) => a - b));

      const events = await me.user.get('/api/v1/events/?limit=200');
      expect(idsOf(events)).toEqual([...me.eventIds].sort((a, b) => a - b));

      const later = '2026-11-23T00:00:00Z';
      const before = await me.user.get(`/api/v1/events/?before=${later}`);
      expect(idsOf(before)).toEqual([...me.eventIds].sort((a, b) => a - b));

      for (const [i, endpointId] of me.endpointIds.entries()) {
        const mine = await me.user.get(`/api/v1/events/?endpoint=${endpointId}`);
        expect(mine.status).toBe(200);
        expect(idsOf(mine)).toEqual(me.eventIds.slice(i * 3, i * 3 + 3));
      }
      for (const endpointId of them.endpointIds) {
        const theirs = await me.user.get(`/api/v1/events/?endpoint=${endpointId}`);
        expect(theirs.status).toBe(404);
        expect(theirs.body.error).toBe('not_found');
      }

      for (const eventId of me.eventIds) {
        const detail = await me.user.get(`/api/v1/events/${eventId}/`);
        expect(detail.status).toBe(200);
        expect(me.endpointIds).toContain(detail.body.endpoint);
      }
      for (const eventId of them.eventIds) {
        const detail = await me.user.get(`/api/v1/events/${eventId}/`);
        expect(detail.status).toBe(404);
        expect(JSON.stringify(detail.body)).not.toContain(them.name);
      }
    }
  });
});
