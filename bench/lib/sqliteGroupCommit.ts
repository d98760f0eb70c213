// The reference for capture on SQLite: bare Fastify and better-sqlite3, WAL with
// synchronous=FULL, and group commit (everything queued in one turn of the event loop
// commits in one transaction before its 200s go out) into one plain table holding the
// raw headers, the body and the arrival time. What this hardware allows bare libraries
// doing the least capture must do; Hookwatch's own schema adds two indexes and more.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

interface Queued {
  headers: string;
  body: Buffer;
  receivedAt: number;
  done(id: number): void;
}

const directory = mkdtempSync(join(tmpdir(), 'hookwatch-bench-reference-'));
const db = new Database(join(directory, 'reference.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(
  'create table events (id integer primary key, headers text not null, body blob not null, received_at integer not null)',
);
const insert = db.prepare('insert into events (headers, body, received_at) values (?, ?, ?)');
const commit = db.transaction((batch: Queued[]) =>
  batch.map((e) => Number(insert.run(e.headers, e.body, e.receivedAt).lastInsertRowid)),
);

let queue: Queued[] = [];
let scheduled = false;
function flush(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  const ids = commit(batch);
  batch.forEach((e, i) => e.done(ids[i]!));
}

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post('/i/:token', async (request) => {
  const id = await new Promise<number>((done) => {
    queue.push({
      headers: JSON.stringify(request.raw.rawHeaders),
      body: request.body as Buffer,
      receivedAt: Date.now() * 1000,
      done,
    });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  return { ok: true, event_id: id };
});

process.once('SIGTERM', () => {
  void app.close().then(() => {
    db.close();
    rmSync(directory, { recursive: true, force: true });
    process.exit(0);
  });
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
);
