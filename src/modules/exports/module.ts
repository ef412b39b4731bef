// The exports module assembled (src/module.ts): the data export configuration, its runs, and
// the jobs that write them (docs/export.md).
import type { Clock } from '../../kernel/clock.js';
import type { Pool } from '../../db/pool.js';
import { createSecretBox } from '../../kernel/secret-box.js';
import type { Module } from '../../module.js';
import { createExportConfigService, type ExportConfigService } from './config-service.js';
import type { ExportSources } from './datasets.js';
import { exportRoutes } from './routes.js';
import { createExportRuns, RUN_TASK, scheduleExportSweeps, SWEEP_INTERVAL_MS, SWEEP_TASK, type ExportRuns } from './runs.js';

export interface ExportsApi {
  configs: ExportConfigService;
  runs: ExportRuns;
}

/** `sources`: the readers of invoices, credit notes and usage (their modules' index.ts); `folderRoot`: EXPORT_FOLDER_ROOT. */
export function createExportsModule(deps: { pool: Pool; clock: Clock; secretKey: string; folderRoot: string; sources: ExportSources }): Module<ExportsApi> {
  const box = createSecretBox(deps.secretKey, 'export-destination');
  const configs = createExportConfigService({ pool: deps.pool, clock: deps.clock, folderRoot: deps.folderRoot, box });
  const runs = createExportRuns({ ...deps, configs });
  return {
    routes: exportRoutes(configs, runs),
    tasks: {
      [RUN_TASK]: async (payload) => {
        await runs.runJob(String(payload.tenant_id), String(payload.run_id));
      },
      [SWEEP_TASK]: async (payload) => {
        try {
          await runs.sweep();
        } finally {
          // periodic: the next sweep is queued by this one (payload.once stops it, for one-shot runs)
          if (!payload.once) await scheduleExportSweeps(deps.pool, new Date(Date.now() + SWEEP_INTERVAL_MS));
        }
      },
    },
    api: { configs, runs },
  };
}
