import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

let cached: string | undefined;

/**
 * This process's worker id, `hostname:pid:random`: written on the jobs it locks (graphile-worker's
 * `locked_by`, as `<id>/<slot>`), in job logs and on what the jobs record (webhook attempts), so
 * with several replicas one can tell which process did the work. The random part tells apart two
 * processes that reuse a pid (containers all running as pid 1).
 */
export function processWorkerId(): string {
  cached ??= `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  return cached;
}

/** The process part of a queue worker's id (`host:pid:rand/2` -> `host:pid:rand`). */
export function processOf(queueWorkerId: string): string {
  const slash = queueWorkerId.lastIndexOf('/');
  return slash < 0 ? queueWorkerId : queueWorkerId.slice(0, slash);
}
