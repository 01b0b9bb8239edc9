/** The time source of every rule that depends on time; tests move a manual clock instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function isoAt(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
