/** "120 ms", "2.4 s": how long an attempt took. */
export function durationText(ms: number): string {
  return ms < 1000 ? `${String(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
