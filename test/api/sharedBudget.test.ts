import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { RunningService } from '../../src/service.js';
import { type TestDatabase, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { startTestService } from '../helpers/service.js';
import { apiGet, apiUser, rateHeaders } from './client.js';

// PostgreSQL mode scales out: every instance must count against the same budget.
(pgAvailable() ? describe : describe.skip)(
  'REST API rate limit across instances [postgres]',
  () => {
    let database: TestDatabase;
    let first: RunningService;
    let second: RunningService;
    const clock = new ManualClock();

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      first = await startTestService(database, { clock });
      second = await startTestService(database, { clock });
    });
    afterAll(async () => {
      await first?.stop();
      await second?.stop();
      await database?.drop();
    });

    it('shares one budget between two instances on one database', async () => {
      const user = await apiUser(first);
      for (let i = 1; i <= 120; i++) {
        const instance = i % 2 === 0 ? first : second;
        const answer = await apiGet(instance.url, '/api/v1/endpoints/', `Bearer ${user.key}`);
        expect(answer.status).toBe(200);
        expect(rateHeaders(answer).remaining).toBe(String(120 - i));
      }
      for (const instance of [first, second]) {
        const refused = await apiGet(instance.url, '/api/v1/endpoints/', `Bearer ${user.key}`);
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('60');
      }
      clock.advanceMs(60_000);
      expect((await apiGet(second.url, '/api/v1/endpoints/', `Bearer ${user.key}`)).status).toBe(
        200,
      );
    });

    it('admits exactly 120 of 150 concurrent requests spread over both instances', async () => {
      const user = await apiUser(first);
      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          apiGet((i % 2 === 0 ? first : second).url, '/api/v1/endpoints/', `Bearer ${user.key}`),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(120);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30);
      const remaining = answers
        .filter((a) => a.status === 200)
        .map((a) => rateHeaders(a).remaining);
      expect(new Set(remaining).size).toBe(120);
    });
  },
);
