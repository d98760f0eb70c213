import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrations/index.js';
import { DIALECTS, createTestDatabase, pgAvailable } from '../helpers/db.js';

for (const dialect of DIALECTS) {
  const run = dialect === 'postgres' && !pgAvailable() ? describe.skip : describe;
  run(`migrations [${dialect}]`, () => {
    it('runs once when two instances start at the same moment', async () => {
      const database = await createTestDatabase(dialect);
      const a = openStore(database.url);
      const b = openStore(database.url);
      try {
        const [ranA, ranB] = await Promise.all([migrate(a), migrate(b)]);
        expect([...ranA, ...ranB].sort()).toEqual(['001_initial']);
        expect(await migrate(a)).toEqual([]);
        const tables = await a.db.introspection.getTables();
        expect(tables.map((t) => t.name)).toEqual(
          expect.arrayContaining([
            'users',
            'sessions',
            'api_keys',
            'endpoints',
            'events',
            'attempts',
          ]),
        );
      } finally {
        await a.close();
        await b.close();
        await database.drop();
      }
    });
  });
}
