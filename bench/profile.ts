// Summary of a V8 CPU profile (Profiler.stop's result) as CPU microseconds per event: by where the
// code comes from (a package, a module of ours, the garbage collector) and by function; and the
// profiling of one phase of a bench (the served process's own thread, sampled every 200 µs).
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a function's code lives: `pkg:<name>` for a dependency, `src/<path>` for ours, or V8's own label. */
function origin(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : `(native) ${functionName || 'anonymous'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  const ours = /\/(src|bench)\/(.*?)(?:\/[^/]+)?$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

export function summariseProfile(raw: object, events: number, top = 15, unit = 'event'): string[] {
  const profile = raw as CpuProfile;
  const selfUs = new Map<number, number>();
  profile.samples.forEach((nodeId, i) => selfUs.set(nodeId, (selfUs.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = origin(url, functionName);
    byOrigin.set(where, (byOrigin.get(where) ?? 0) + us);
    const name = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const busy = [...byOrigin].filter(([k]) => k !== '(idle)').reduce((sum, [, us]) => sum + us, 0);
  const perEvent = (us: number) => (us / events).toFixed(2).padStart(7);
  const sorted = (m: Map<string, number>) => [...m].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]);
  return [
    `  busy ${perEvent(busy)} µs/${unit} (idle ${perEvent(byOrigin.get('(idle)') ?? 0)} µs/${unit})`,
    '  by origin:',
    ...sorted(byOrigin).slice(0, top).map(([k, us]) => `  ${perEvent(us)} µs  ${k}`),
    '  by function (self time):',
    ...sorted(byFunction).slice(0, top).map(([k, us]) => `  ${perEvent(us)} µs  ${k}`),
  ];
}

/** Runs `work`, with a CPU profile of this process when `file` is set (the caller writes it). */
export async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<{ result: T; profile?: object }> {
  if (!file) return { result: await work() };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    return { result, profile };
  } finally {
    session.disconnect();
  }
}
