import type { EventRow } from './repository.js';

/** What became of one event written through the group committer. */
export type SingleOutcome =
  | { kind: 'stored'; /** inside a period an invoice has already billed */ late: boolean }
  | { kind: 'duplicate' }
  | { kind: 'conflict'; reason: string };

/** Writes rows with distinct event ids of one tenant in one statement; the outcome of each id. */
export type GroupWriter = (tenantId: string, rows: readonly EventRow[]) => Promise<Map<string, SingleOutcome>>;

interface Waiter {
  row: EventRow;
  resolve: (outcome: SingleOutcome) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Statements in flight at once; requests arriving meanwhile wait and go together in the next one. */
  maxInFlight: number;
  /** Most events in one statement. */
  maxGroup: number;
}

/**
 * Group commit for single-event requests. Each commit costs a WAL flush and a round trip, so
 * concurrent requests are coalesced: whatever arrived while earlier statements were in flight is
 * written in one multi-row statement, and each request is answered from its own row's outcome
 * once that statement has committed (so an id is seen only once durably written, as for a batch).
 * There is no timer: an idle server writes a request at once; under load, groups form by
 * themselves while the database works.
 *
 * Two requests with the same event id never share a statement: the later one waits for the
 * next group, where it meets the first one's committed row like a sequential retry would.
 * If a group's statement fails, each of its events is retried alone, so one bad event only
 * fails its own request. A group keeps its requests' arrival order: the writer's statements put
 * the rows in event-id order themselves (repository.ts), so merged groups lock in that order too.
 */
export function createGroupCommitter(write: GroupWriter, options: GroupCommitOptions) {
  const queues = new Map<string, Waiter[]>();
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // setImmediate: requests parsed in the same event-loop turn join the same group.
    setImmediate(pump);
  }

  /** Takes up to maxGroup waiters with distinct event ids, keeping the others in order. */
  function takeGroup(queue: Waiter[]): Waiter[] {
    const ids = new Set<string>();
    const group: Waiter[] = [];
    const rest: Waiter[] = [];
    for (const waiter of queue) {
      if (group.length < options.maxGroup && !ids.has(waiter.row.eventId)) {
        ids.add(waiter.row.eventId);
        group.push(waiter);
      } else {
        rest.push(waiter);
      }
    }
    queue.splice(0, queue.length, ...rest);
    return group;
  }

  async function writeAlone(tenantId: string, waiter: Waiter): Promise<void> {
    try {
      waiter.resolve(outcomeOf(await write(tenantId, [waiter.row]), waiter));
    } catch (error) {
      waiter.reject(error);
    }
  }

  async function flush(tenantId: string, group: Waiter[]): Promise<void> {
    let outcomes: Map<string, SingleOutcome>;
    try {
      outcomes = await write(tenantId, group.map((w) => w.row));
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      // The statement stored nothing (it is atomic): find out whose event made it fail.
      else for (const waiter of group) await writeAlone(tenantId, waiter);
      return;
    }
    for (const waiter of group) {
      try {
        waiter.resolve(outcomeOf(outcomes, waiter));
      } catch (error) {
        waiter.reject(error);
      }
    }
  }

  function pump(): void {
    scheduled = false;
    // Round-robin over tenants so one busy tenant does not hold every slot.
    let progressed = true;
    while (progressed && inFlight < options.maxInFlight) {
      progressed = false;
      for (const [tenantId, queue] of queues) {
        if (inFlight >= options.maxInFlight) break;
        if (queue.length === 0) {
          queues.delete(tenantId);
          continue;
        }
        const group = takeGroup(queue);
        inFlight += 1;
        progressed = true;
        void flush(tenantId, group).finally(() => {
          inFlight -= 1;
          if (queues.size > 0) schedule();
        });
      }
    }
  }

  return {
    /** Writes one event (grouped with concurrent ones) and resolves once its statement committed. */
    submit(tenantId: string, row: EventRow): Promise<SingleOutcome> {
      return new Promise<SingleOutcome>((resolve, reject) => {
        let queue = queues.get(tenantId);
        if (!queue) queues.set(tenantId, (queue = []));
        queue.push({ row, resolve, reject });
        schedule();
      });
    },
  };
}

function outcomeOf(outcomes: Map<string, SingleOutcome>, waiter: Waiter): SingleOutcome {
  const outcome = outcomes.get(waiter.row.eventId);
  if (!outcome) throw new Error(`group commit: no outcome for event ${waiter.row.eventId}`);
  return outcome;
}
