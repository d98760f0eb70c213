import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { createTestDatabase } from '../helpers/db.js';
import { signUp } from '../helpers/http.js';
import { spawnService } from '../helpers/process.js';

describe('graceful stop', () => {
  it('answers the captures in flight, commits them, and exits 0 on SIGTERM', async () => {
    const database = await createTestDatabase('sqlite');
    const service = await spawnService({ DATABASE_URL: database.url });
    try {
      const session = await signUp(service.url);
      const endpoint = (await session.call('POST', '/app/api/endpoints', { name: 'x' })).body;
      const inFlight = Array.from({ length: 50 }, (_, i) =>
        fetch(`${service.url}/i/${endpoint.token}`, { method: 'POST', body: String(i) }).then(
          async (r) =>
            r.status === 200 ? ((await r.json()) as { event_id: number }).event_id : null,
          () => null,
        ),
      );
      await new Promise((r) => setTimeout(r, 5));
      const code = await service.stop();
      expect(code).toBe(0);
      const acknowledged = (await Promise.all(inFlight)).filter((id): id is number => id !== null);
      const store = openStore(database.url);
      try {
        const rows = await store.db.selectFrom('events').select('id').execute();
        const stored = new Set(rows.map((r) => r.id));
        expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      } finally {
        await store.close();
      }
      expect(service.logs.some((l) => l.msg === 'Hookwatch stopped')).toBe(true);
    } finally {
      await service.kill();
      await database.drop();
    }
  });

  it('stops with a message naming the variable on bad configuration', async () => {
    await expect(
      spawnService({ PORT: 'eighty', DATABASE_URL: 'sqlite:/tmp/never.db' }),
    ).rejects.toThrow(/PORT must be an integer/);
  });
});
