// The one shape a module is assembled in. Every src/modules/<m>/module.ts has a
// `createXModule(deps)` returning it, so compose() (src/composition.ts) is a list of module
// creations in the order of docs/architecture.md, and the app, the job worker and the outbox
// relay are filled from that list.
import type { OutboxConsumer } from './db/outbox.js';
import type { RouteModule } from './http/app.js';
import type { TaskRegistry } from './jobs/runtime.js';

export interface Module<Api = Record<string, never>> {
  /** Its HTTP surface (API routes, pages), registered in module order. */
  routes?: RouteModule;
  /** Job-queue handlers by task name. */
  tasks?: TaskRegistry;
  /** What it does with new outbox events; the webhooks relay hands each event to each consumer once. */
  outboxConsumers?: OutboxConsumer[];
  /** What the composition root passes on to later modules (services, ports), or exposes to tests. */
  api: Api;
}
