import { describe, expect, it } from 'vitest';
import { CaptureWriter } from '../../src/capture/groupCommit.js';
import type { CapturedEvent } from '../../src/store/capture.js';
import { capturedEvent, storedIds } from '../helpers/events.js';

/** A commit function whose transactions finish when the test says so. */
function controlledCommit() {
  const calls: Array<{ events: CapturedEvent[]; finish(): void; fail(error: Error): void }> = [];
  let nextId = 1;
  const commit = (events: CapturedEvent[]) =>
    new Promise<number[]>((resolve, reject) => {
      calls.push({
        events,
        finish: () => resolve(events.map(() => nextId++)),
        fail: reject,
      });
    });
  return { commit, calls };
}

const event = (n: number) => capturedEvent(1, 1, n);
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** A commit starts two turns of the event loop after the capture that asked for it. */
const commitStarts = async () => {
  await turn();
  await turn();
};

describe('group commit', () => {
  it('queues captures that arrive during a commit and commits them together next', async () => {
    const { commit, calls } = controlledCommit();
    const writer = new CaptureWriter(commit, { maxBatch: 10, maxInFlight: 4 });
    const first = writer.submit(event(1));
    await commitStarts();
    const rest = [2, 3, 4].map((n) => writer.submit(event(n)));
    await commitStarts();
    expect(calls).toHaveLength(1);

    calls[0]!.finish();
    expect(await first).toBe(1);
    await commitStarts();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.events.map((e) => e.receivedAt)).toEqual([2, 3, 4]);
    calls[1]!.finish();
    expect(await Promise.all(rest)).toEqual([2, 3, 4]);
  });

  it('gathers what arrives in the next turn of the event loop into the same batch', async () => {
    const { commit, calls } = controlledCommit();
    const writer = new CaptureWriter(commit);
    const first = writer.submit(event(1));
    await turn();
    expect(calls).toHaveLength(0);
    // As a request read in the next poll phase, after its sender got an answer, would.
    const second = writer.submit(event(2));
    await turn();
    expect(calls.map((c) => c.events.map((e) => e.receivedAt))).toEqual([[1, 2]]);
    calls[0]!.finish();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
  });

  it('starts a commit beside the running one once a whole batch is waiting', async () => {
    const { commit, calls } = controlledCommit();
    const writer = new CaptureWriter(commit, { maxBatch: 2, maxInFlight: 2 });
    const all = [writer.submit(event(1))];
    await commitStarts();
    all.push(writer.submit(event(2)), writer.submit(event(3)));
    await commitStarts();
    expect(calls.map((c) => c.events.length)).toEqual([1, 2]);

    // The in-flight limit holds, however long the queue grows.
    all.push(...[4, 5, 6].map((n) => writer.submit(event(n))));
    await commitStarts();
    expect(calls).toHaveLength(2);
    // Finishing commits lets the queued captures through; each may start the next one.
    for (let i = 0; i < calls.length; i++) {
      calls[i]!.finish();
      // The writer's two turns start one after this test's first.
      await commitStarts();
      await turn();
    }
    expect(storedIds(await Promise.all(all)).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(calls.flatMap((c) => c.events.map((e) => e.receivedAt)).sort()).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
  });

  it('fails every capture of a batch whose commit failed, and only those', async () => {
    const { commit, calls } = controlledCommit();
    const writer = new CaptureWriter(commit);
    const first = writer.submit(event(1));
    await commitStarts();
    const second = writer.submit(event(2));
    calls[0]!.fail(new Error('disk full'));
    await expect(first).rejects.toThrow('disk full');
    await commitStarts();
    calls[1]!.finish();
    expect(await second).toBeGreaterThan(0);
    await writer.flush();
  });
});
