import { describe, expect, it } from 'vitest';
import type { UsageStamp } from '../../store/store.js';
import { UsageRecorder } from './usage.js';

/** Only the two writes the recorder makes; a flaky database fails the first `failures` calls. */
function fakeStore(failures: number) {
  const written: UsageStamp[][] = [];
  let calls = 0;
  const store = {
    keys: {
      touch: (stamps: readonly UsageStamp[]) => {
        calls++;
        if (calls <= failures) return Promise.reject(new Error('database away'));
        written.push([...stamps]);
        return Promise.resolve();
      },
    },
    tokens: { touch: () => Promise.resolve() },
  } as unknown as ConstructorParameters<typeof UsageRecorder>[0];
  return { store, written };
}

describe('UsageRecorder', () => {
  it('keeps only the latest use of each key and writes them in one batch', async () => {
    const { store, written } = fakeStore(0);
    const recorder = new UsageRecorder(store, () => undefined, 60_000);
    recorder.used('brand', 'bk_1', 1000);
    recorder.used('brand', 'bk_1', 3000);
    recorder.used('brand', 'bk_1', 2000);
    recorder.used('brand', 'bk_2', 1500);
    expect(recorder.pendingUse('brand', 'bk_1')).toBe(new Date(3000).toISOString());
    await recorder.close();
    expect(written).toEqual([
      [
        { id: 'bk_1', usedAt: new Date(3000).toISOString() },
        { id: 'bk_2', usedAt: new Date(1500).toISOString() },
      ],
    ]);
    expect(recorder.pendingUse('brand', 'bk_1')).toBeUndefined();
  });

  it('keeps the stamps of a failed write for the next flush', async () => {
    const { store, written } = fakeStore(1);
    const recorder = new UsageRecorder(store, () => undefined, 60_000);
    recorder.used('brand', 'bk_1', 1000);
    await expect(recorder.flush()).rejects.toThrow('database away');
    expect(recorder.pendingUse('brand', 'bk_1')).toBe(new Date(1000).toISOString());
    await recorder.close();
    expect(written).toEqual([[{ id: 'bk_1', usedAt: new Date(1000).toISOString() }]]);
  });
});
