import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { DIALECTS, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { callJson, signUp } from '../helpers/http.js';
import { spawnService } from '../helpers/process.js';

for (const dialect of DIALECTS) {
  const run = dialect === 'postgres' && !pgAvailable() ? describe.skip : describe;
  run(`capture durability [${dialect}]`, () => {
    it('keeps every acknowledged capture through a SIGKILL', async () => {
      const database = await createTestDatabase(dialect);
      const first = await spawnService({ DATABASE_URL: database.url });
      let second: Awaited<ReturnType<typeof spawnService>> | undefined;
      try {
        const session = await signUp(first.url);
        const endpoint = (await session.call('POST', '/app/api/endpoints', { name: 'burst' })).body;

        // A burst of captures in flight; the process is killed while they keep coming.
        const acknowledged: number[] = [];
        const sends = Array.from({ length: 400 }, async (_, i) => {
          try {
            const response = await fetch(`${first.url}/i/${endpoint.token}`, {
              method: 'POST',
              body: JSON.stringify({ i }),
            });
            if (response.status === 200) {
              acknowledged.push(((await response.json()) as { event_id: number }).event_id);
            }
          } catch {
            // the connection died with the process: not acknowledged, nothing promised
          }
        });
        while (acknowledged.length < 100) await new Promise((r) => setTimeout(r, 1));
        await first.kill();
        await Promise.all(sends);
        expect(acknowledged.length).toBeGreaterThanOrEqual(100);

        second = await spawnService({ DATABASE_URL: database.url });
        const store = openStore(database.url);
        try {
          const rows = await store.db
            .selectFrom('events')
            .select('id')
            .where('endpoint_id', '=', endpoint.id)
            .execute();
          const stored = new Set(rows.map((r) => r.id));
          const missing = acknowledged.filter((id) => !stored.has(id));
          expect(missing).toEqual([]);
        } finally {
          await store.close();
        }
        // Sessions live in the database: the login survives the restart.
        const me = await callJson(second.url, 'GET', '/app/api/me', { cookie: session.cookie });
        expect(me.status).toBe(200);
        expect(me.body.email).toBe(session.email);
      } finally {
        await first.kill();
        await second?.stop();
        await database.drop();
      }
    });
  });
}
