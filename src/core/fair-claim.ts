/**
 * Which endpoints a worker's claim takes webhook deliveries from, so that no workspace and no endpoint holds
 * more than its share of the delivery workers (docs/webhooks.md "Fair delivery"). A pure function of what the
 * queue holds: the store reads it, this decides, the store leases.
 */

/** An endpoint with deliveries due that no live lease holds (and no backoff keeps waiting). */
export interface DueEndpoint {
  webhookId: string;
  workspaceId: string;
  /** When its oldest due delivery fell due (ISO-8601): among equals, the longest waiting goes first. */
  oldestDue: string;
  /** How many of its deliveries are due and free. */
  due: number;
}

/** The attempts in flight now (live leases, on every node), by endpoint and by workspace. */
export interface InFlight {
  endpoints: ReadonlyMap<string, number>;
  workspaces: ReadonlyMap<string, number>;
}

interface Candidate {
  endpoint: DueEndpoint;
  /** Its attempts in flight, those picked here included. */
  load: number;
  /** How many more it may be given. */
  room: number;
}

interface WorkspaceQueue {
  id: string;
  load: number;
  candidates: Candidate[];
}

/** Fewest in flight first; then the longest waiting; then by id, so that every node orders alike. */
function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    a.load - b.load ||
    a.endpoint.oldestDue.localeCompare(b.endpoint.oldestDue) ||
    a.endpoint.webhookId.localeCompare(b.endpoint.webhookId)
  );
}

function head(queue: WorkspaceQueue): Candidate {
  return queue.candidates.reduce((best, candidate) =>
    compareCandidates(candidate, best) < 0 ? candidate : best,
  );
}

/** A workspace's turn: its endpoint next in line. */
interface Turn {
  queue: WorkspaceQueue;
  candidate: Candidate;
}

/** The workspace with the fewest in flight first; then the one whose next endpoint has waited longest. */
function compareTurns(a: Turn, b: Turn): number {
  return (
    a.queue.load - b.queue.load ||
    a.candidate.endpoint.oldestDue.localeCompare(b.candidate.endpoint.oldestDue) ||
    a.queue.id.localeCompare(b.queue.id)
  );
}

/**
 * The endpoints to lease up to `limit` deliveries from, one entry per delivery, in the order they are
 * given. Round-robin across workspaces: each delivery goes to the workspace with the fewest attempts in
 * flight (counting those already picked), so a workspace whose endpoints hang cannot keep the others
 * waiting; within a workspace, to its endpoint with the fewest in flight. An endpoint never gets more than
 * `perEndpoint` in flight (unlimited when undefined) nor more than it has due.
 */
export function fairPicks(
  endpoints: readonly DueEndpoint[],
  inFlight: InFlight,
  limit: number,
  perEndpoint?: number,
): string[] {
  const queues = new Map<string, WorkspaceQueue>();
  for (const endpoint of endpoints) {
    const load = inFlight.endpoints.get(endpoint.webhookId) ?? 0;
    const room = Math.min(endpoint.due, perEndpoint === undefined ? Infinity : perEndpoint - load);
    if (room <= 0) continue;
    let queue = queues.get(endpoint.workspaceId);
    if (!queue) {
      queue = {
        id: endpoint.workspaceId,
        load: inFlight.workspaces.get(endpoint.workspaceId) ?? 0,
        candidates: [],
      };
      queues.set(endpoint.workspaceId, queue);
    }
    queue.candidates.push({ endpoint, load, room });
  }
  const picks: string[] = [];
  while (picks.length < limit) {
    let next: Turn | undefined;
    for (const queue of queues.values()) {
      const turn = { queue, candidate: head(queue) };
      if (next === undefined || compareTurns(turn, next) < 0) next = turn;
    }
    if (next === undefined) break;
    const { queue, candidate } = next;
    picks.push(candidate.endpoint.webhookId);
    queue.load += 1;
    candidate.load += 1;
    candidate.room -= 1;
    if (candidate.room === 0) queue.candidates.splice(queue.candidates.indexOf(candidate), 1);
    if (queue.candidates.length === 0) queues.delete(queue.id);
  }
  return picks;
}

/** The endpoints in the order a claim tries them: each once, as fairPicks would first give to each. */
export function fairOrder(
  endpoints: readonly DueEndpoint[],
  inFlight: InFlight,
  perEndpoint?: number,
): string[] {
  return fairPicks(
    endpoints.map((endpoint) => ({ ...endpoint, due: Math.min(endpoint.due, 1) })),
    inFlight,
    endpoints.length,
    perEndpoint,
  );
}
