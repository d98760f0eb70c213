import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Bus, openBus } from '../../src/store/bus.js';
import { type Store, openStore } from '../../src/store/db.js';
import { describeEachDialect } from '../helpers/db.js';

describeEachDialect('bus', (ctx) => {
  // Two instances: on PostgreSQL each has its own pool and LISTEN connection, as two
  // processes would; SQLite mode is one process, so there the second is the first.
  let other: Store;
  let mine: Bus;
  let theirs: Bus;
  beforeAll(async () => {
    other = ctx.dialect === 'postgres' ? openStore(ctx.database.url) : ctx.store;
    const fail = (error: Error) => {
      throw error;
    };
    mine = await openBus(ctx.store, fail);
    theirs = ctx.dialect === 'postgres' ? await openBus(other, fail) : mine;
  });
  afterAll(async () => {
    await mine.close();
    if (theirs !== mine) await theirs.close();
    if (other !== ctx.store) await other.close();
  });

  it('delivers every message of a publishAll, in order, here and on the other instance', async () => {
    const payloads = Array.from({ length: 250 }, (_, i) => `7:${i}`);
    const here: string[] = [];
    const there: string[] = [];
    const offHere = mine.subscribe('attempt_updated', (p) => here.push(p));
    const offThere = theirs.subscribe('attempt_updated', (p) => there.push(p));
    try {
      await mine.publishAll(payloads.map((payload) => ({ channel: 'attempt_updated', payload })));
      const deadline = Date.now() + 5000;
      while (there.length < payloads.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Once each: an instance does not hear its own notices back from PostgreSQL.
      expect(here).toEqual(payloads);
      expect(there).toEqual(payloads);
    } finally {
      offHere();
      offThere();
    }
  });

  it('publishes nothing for an empty list', async () => {
    await expect(mine.publishAll([])).resolves.toBeUndefined();
  });
});
