import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The compiled CLI, as `npm start` runs it (`npm test` builds it first). */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** JSON log lines printed so far. */
  logs: Array<Record<string, unknown>>;
  /** SIGKILL: no chance to flush or clean up. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Runs `hookwatch serve` as a real child process and waits until it is up. */
export async function spawnService(env: Record<string, string>): Promise<ServiceProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build:server`);
  // PORT=0 by default: the service binds a port the system picks and prints its URL. A
  // port found free beforehand could be taken (by any loopback client's source port)
  // before the child bound it, and the run failed with EADDRINUSE.
  const port = env.PORT ?? '0';
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOOKWATCH_ALLOW_PRIVATE_TARGETS: '1',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      ...env,
      PORT: port,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const up = new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (typeof entry.url === 'string' && String(entry.msg).startsWith('Hookwatch is up')) {
            resolve(entry.url);
          }
        } catch {
          // not a log line
        }
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`service exited with ${code} before it was up: ${stderr}`)),
    );
  });
  const timeout = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const url = await up.finally(() => clearTimeout(timeout));
  return {
    url,
    child,
    logs,
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    stop: async () => {
      child.kill('SIGTERM');
      return exited(child);
    },
  };
}
