import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { writeTransaction } from '../../src/store/db.js';
import { describeEachDialect } from '../helpers/db.js';

describeEachDialect('write transactions', (ctx) => {
  // What this connection would do at a commit: SQLite's synchronous level (2 = FULL,
  // 1 = NORMAL), PostgreSQL's synchronous_commit.
  async function commitWaitsForDisk(db = ctx.store.db): Promise<string> {
    if (ctx.dialect === 'sqlite') {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
      return String(rows[0]!.synchronous);
    }
    const { rows } = await sql<{
      s: string;
    }>`select current_setting('synchronous_commit') as s`.execute(db);
    return rows[0]!.s;
  }
  const durable = () => (ctx.dialect === 'sqlite' ? '2' : 'on');
  const notDurable = () => (ctx.dialect === 'sqlite' ? '1' : 'off');

  it('commits durably by default', async () => {
    expect(await commitWaitsForDisk()).toBe(durable());
    expect(await writeTransaction(ctx.store, (trx) => commitWaitsForDisk(trx))).toBe(durable());
  });

  it('lowers durability for one transaction only, also when it fails', async () => {
    const inside = await writeTransaction(ctx.store, (trx) => commitWaitsForDisk(trx), {
      durable: false,
    });
    expect(inside).toBe(notDurable());
    expect(await commitWaitsForDisk()).toBe(durable());

    await expect(
      writeTransaction(
        ctx.store,
        async () => {
          throw new Error('boom');
        },
        { durable: false },
      ),
    ).rejects.toThrow('boom');
    expect(await commitWaitsForDisk()).toBe(durable());
    // The next default transaction is durable again.
    expect(await writeTransaction(ctx.store, (trx) => commitWaitsForDisk(trx))).toBe(durable());
  });

  it('still commits what a non-durable transaction wrote', async () => {
    const email = `nd-${Date.now()}@example.com`;
    await writeTransaction(
      ctx.store,
      (trx) =>
        trx
          .insertInto('users')
          .values({ email, password_hash: 'x', plan: 'free', created_at: 1 })
          .execute(),
      { durable: false },
    );
    const row = await ctx.store.db
      .selectFrom('users')
      .select('email')
      .where('email', '=', email)
      .executeTakeFirst();
    expect(row?.email).toBe(email);
  });

  it('rolls back everything a failed non-durable transaction wrote', async () => {
    const email = `rb-${Date.now()}@example.com`;
    await expect(
      writeTransaction(
        ctx.store,
        async (trx) => {
          await trx
            .insertInto('users')
            .values({ email, password_hash: 'x', plan: 'free', created_at: 1 })
            .execute();
          throw new Error('boom');
        },
        { durable: false, settings: { enable_sort: 'off' } },
      ),
    ).rejects.toThrow('boom');
    const row = await ctx.store.db
      .selectFrom('users')
      .select('email')
      .where('email', '=', email)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('refuses a setting that is not a plain name and value', async () => {
    if (ctx.dialect !== 'postgres') return;
    await expect(
      writeTransaction(ctx.store, async () => 1, { settings: { enable_sort: "off'; drop" } }),
    ).rejects.toThrow('not a plain setting');
  });

  it('applies PostgreSQL settings to that transaction alone', async () => {
    if (ctx.dialect !== 'postgres') return;
    const setting = (db = ctx.store.db) =>
      sql<{ s: string }>`select current_setting('enable_sort') as s`
        .execute(db)
        .then(({ rows }) => rows[0]!.s);
    const inside = await writeTransaction(ctx.store, (trx) => setting(trx), {
      settings: { enable_sort: 'off' },
    });
    expect(inside).toBe('off');
    expect(await setting()).toBe('on');
  });
});
