import { describe, expect, it } from 'vitest';
import { LoginFailures } from '../../src/app/loginFailures.js';

const MINUTE = 60 * 1_000_000;

describe('LoginFailures', () => {
  it('refuses an account after 10 failures in 15 minutes, until the oldest ages out', () => {
    const failures = new LoginFailures();
    for (let i = 0; i < 10; i += 1) failures.record('a@example.com', i * MINUTE);
    expect(failures.retryAfter('a@example.com', 10 * MINUTE)).toBe(5 * 60);
    expect(failures.retryAfter('a@example.com', 15 * MINUTE + 1)).toBe(0);
    expect(failures.retryAfter('b@example.com', 10 * MINUTE)).toBe(0);
  });

  it('counts an admitted attempt as a failure at once, so racing attempts cannot all pass', () => {
    const failures = new LoginFailures();
    const waits = Array.from({ length: 15 }, () => failures.admit('race@example.com', MINUTE));
    expect(waits.filter((w) => w === 0)).toHaveLength(10);
    expect(waits.slice(10).every((w) => w === 15 * 60)).toBe(true);
    failures.clear('race@example.com');
    expect(failures.admit('race@example.com', MINUTE)).toBe(0);
  });

  it('forgets accounts whose failures aged out, however many made-up addresses were tried', () => {
    const failures = new LoginFailures();
    for (let i = 0; i < 5000; i += 1) failures.record(`nobody-${i}@example.com`, 0);
    expect(failures.tracked).toBe(5000);
    // Later failures trigger a sweep once the map has doubled: the old ones go.
    for (let i = 0; i < 5000; i += 1) failures.record(`later-${i}@example.com`, 20 * MINUTE);
    expect(failures.tracked).toBeLessThanOrEqual(5000);
    expect(failures.retryAfter('later-1@example.com', 20 * MINUTE)).toBe(0);
    for (let i = 0; i < 9; i += 1) failures.record('later-1@example.com', 20 * MINUTE);
    expect(failures.retryAfter('later-1@example.com', 20 * MINUTE)).toBeGreaterThan(0);
  });
});
