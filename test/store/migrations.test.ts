import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrations/index.js';
import { DIALECTS, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { CLI } from '../helpers/process.js';

const run = promisify(execFile);

for (const dialect of DIALECTS) {
  const suite = dialect === 'postgres' && !pgAvailable() ? describe.skip : describe;
  suite(`migrations [${dialect}]`, () => {
    it('runs once when three instances migrate at the same moment', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const env = { PATH: process.env.PATH ?? '', DATABASE_URL: database.url };
        const outputs = await Promise.all(
          [1, 2, 3].map(() => run(process.execPath, [CLI, 'migrate'], { env })),
        );
        const applied = outputs.filter((o) => o.stdout.startsWith('applied:'));
        expect(applied).toHaveLength(1);
        const store = openStore(database.url);
        try {
          expect(await migrate(store)).toEqual([]);
          const tables = (await store.db.introspection.getTables()).map((t) => t.name);
          expect(tables).toEqual(
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
          await store.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
