import { describe, expect, it } from 'vitest';
import { ManualClock } from '#test/support/clock.js';
import { AttemptWindows } from './attempt-windows.js';

function windowsOf(attempts: number, windowSeconds: number): { windows: AttemptWindows; clock: ManualClock } {
  const clock = new ManualClock();
  return { windows: new AttemptWindows({ attempts, windowSeconds }, clock), clock };
}

describe('AttemptWindows', () => {
  it('lets a key make its attempts, then answers the time left in the window it started', () => {
    const { windows, clock } = windowsOf(2, 10);
    expect(windows.take('a')).toBeUndefined();
    clock.advance(4000);
    expect(windows.take('a')).toBeUndefined();
    expect(windows.take('a')).toBe(6000);
    // another key has its own window
    expect(windows.take('b')).toBeUndefined();
  });

  it('does not count a refused attempt, and starts a fresh window once the clock reaches its end', () => {
    const { windows, clock } = windowsOf(1, 10);
    windows.take('a');
    for (let refused = 0; refused < 3; refused++) expect(windows.take('a')).toBe(10_000);
    clock.advance(9999);
    expect(windows.take('a')).toBe(1);
    clock.advance(1);
    expect(windows.take('a')).toBeUndefined();
    expect(windows.take('a')).toBe(10_000);
  });

  it('uncounts an attempt given back within its window, and only then', () => {
    const { windows, clock } = windowsOf(1, 10);
    windows.take('a');
    windows.giveBack('a');
    expect(windows.take('a')).toBeUndefined();
    clock.advance(10_000);
    // the window has ended: giving back must not leave the next window a free attempt
    windows.giveBack('a');
    expect(windows.take('a')).toBeUndefined();
    expect(windows.take('a')).toBe(10_000);
  });

  it("counts into a key's running window and shows it, its attempts and its end, then the wait once used up", () => {
    const { windows, clock } = windowsOf(2, 10);
    expect(windows.count('a')).toEqual({ count: 1, endsAt: clock.now() + 10_000 });
    clock.advance(4000);
    expect(windows.count('a')).toEqual({ count: 2, endsAt: clock.now() + 6000 });
    expect(windows.count('a')).toBe(6000);
    clock.advance(6000);
    expect(windows.count('a')).toEqual({ count: 1, endsAt: clock.now() + 10_000 });
  });

  it('forgets a cleared key at once', () => {
    const { windows } = windowsOf(1, 10);
    windows.take('a');
    windows.clear('a');
    expect(windows.take('a')).toBeUndefined();
  });

  it('keeps counting live windows through the sweeps of ended ones', () => {
    const { windows, clock } = windowsOf(1, 10);
    for (let key = 0; key < 3000; key++) windows.take(`early ${String(key)}`);
    clock.advance(5000);
    windows.take('live');
    clock.advance(7000);
    // the early windows have ended: new keys sweep them out, and leave the live one
    for (let key = 0; key < 3000; key++) windows.take(`late ${String(key)}`);
    expect(windows.take('live')).toBe(3000);
    expect(windows.take('early 0')).toBeUndefined();
  });
});
