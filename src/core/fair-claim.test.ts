import { describe, expect, it } from 'vitest';
import { type DueEndpoint, fairOrder, fairPicks, type InFlight } from './fair-claim.js';

const NOTHING_IN_FLIGHT: InFlight = { endpoints: new Map(), workspaces: new Map() };

/** `count` endpoints of `workspace`, each with `due` deliveries, the first due at `from` seconds. */
function endpointsOf(workspace: string, count: number, due = 1, from = 0): DueEndpoint[] {
  return Array.from({ length: count }, (_, index) => ({
    webhookId: `${workspace}-${String(index)}`,
    workspaceId: workspace,
    oldestDue: new Date((from + index) * 1000).toISOString(),
    due,
  }));
}

const workspaceOf = (webhookId: string) => webhookId.split('-')[0];

describe('fairPicks', () => {
  it('takes turns between workspaces, however many endpoints the first has and however long they waited', () => {
    const picks = fairPicks(
      [...endpointsOf('noisy', 60), ...endpointsOf('quiet', 1, 1, 3600)],
      NOTHING_IN_FLIGHT,
      4,
    );
    expect(picks).toHaveLength(4);
    expect(picks.filter((pick) => workspaceOf(pick) === 'quiet')).toEqual(['quiet-0']);
  });

  it('gives the next delivery to the workspace with the fewest attempts in flight, on any node', () => {
    const inFlight: InFlight = {
      endpoints: new Map([
        ['noisy-0', 1],
        ['noisy-1', 1],
        ['noisy-2', 1],
      ]),
      workspaces: new Map([['noisy', 3]]),
    };
    const picks = fairPicks(
      [...endpointsOf('noisy', 10, 1, 3), ...endpointsOf('quiet', 2, 5, 100)],
      inFlight,
      4,
    );
    // The quiet workspace catches up to 3 in flight before the noisy one gets a fourth.
    expect(picks.map(workspaceOf)).toEqual(['quiet', 'quiet', 'quiet', 'noisy']);
  });

  it('serves the longest-waiting workspace first among equals, then alternates', () => {
    const picks = fairPicks(
      [...endpointsOf('late', 3, 1, 50), ...endpointsOf('early', 3, 1, 0)],
      NOTHING_IN_FLIGHT,
      6,
    );
    expect(picks.map(workspaceOf)).toEqual(['early', 'late', 'early', 'late', 'early', 'late']);
  });

  it('never gives an endpoint more than perEndpoint in flight, counting those already there', () => {
    const busy: InFlight = { endpoints: new Map([['a-0', 1]]), workspaces: new Map([['a', 1]]) };
    expect(fairPicks(endpointsOf('a', 2, 10), busy, 10, 1)).toEqual(['a-1']);
    expect(fairPicks(endpointsOf('a', 2, 10), busy, 10, 2).sort()).toEqual(['a-0', 'a-1', 'a-1']);
    expect(fairPicks(endpointsOf('a', 1, 10), NOTHING_IN_FLIGHT, 4, 1)).toEqual(['a-0']);
  });

  it('spreads a workspace over its endpoints, and gives none more than it has due', () => {
    const picks = fairPicks([...endpointsOf('a', 2, 1), ...endpointsOf('b', 1, 5)], NOTHING_IN_FLIGHT, 10);
    expect(picks.sort()).toEqual(['a-0', 'a-1', 'b-0', 'b-0', 'b-0', 'b-0', 'b-0']);
  });

  it('picks nothing when nothing is due, or the limit is 0', () => {
    expect(fairPicks([], NOTHING_IN_FLIGHT, 4)).toEqual([]);
    expect(fairPicks(endpointsOf('a', 3), NOTHING_IN_FLIGHT, 0)).toEqual([]);
  });
});

describe('fairOrder', () => {
  it('lists each endpoint once, alternating workspaces, and leaves out those with no room', () => {
    const busy: InFlight = { endpoints: new Map([['a-0', 1]]), workspaces: new Map([['a', 1]]) };
    expect(fairOrder([...endpointsOf('a', 3, 4), ...endpointsOf('b', 2, 4, 10)], busy, 1)).toEqual([
      'b-0',
      'a-1',
      'b-1',
      'a-2',
    ]);
  });
});
