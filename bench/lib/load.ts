// Load generation in a separate process (autocannon's CLI), so the server under test
// and the load generator do not share an event loop.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const run = promisify(execFile);
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
}

export async function load(options: {
  url: string;
  connections: number;
  seconds: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
}): Promise<LoadResult> {
  const args = [
    AUTOCANNON,
    '--json',
    '-c',
    String(options.connections),
    '-d',
    String(options.seconds),
    '-m',
    options.method ?? 'POST',
  ];
  for (const [name, value] of Object.entries(options.headers ?? {}))
    args.push('-H', `${name}=${value}`);
  if (options.body !== undefined) args.push('-b', options.body);
  args.push(options.url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    '2xx': number;
    non2xx: number;
    errors: number;
  };
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** A padded JSON body of exactly `bytes` bytes. */
export function jsonBody(bytes: number): string {
  const head = '{"type":"invoice.paid","data":{"id":"in_1","pad":"';
  const tail = '"}}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

export function table(rows: Array<Record<string, string | number>>): string {
  const columns = Object.keys(rows[0] ?? {});
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(columns.map((c) => String(r[c])))),
  ].join('\n');
}

/** The middle value, or the mean of the two middle values of an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
