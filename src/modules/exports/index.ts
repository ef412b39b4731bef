// What the composition root and tests may use from data export (docs/export.md).
export { createExportsModule } from './module.js';
export type { ExportsApi } from './module.js';
export type { ExportSources } from './datasets.js';
export { DATASETS } from './datasets.js';
export { scheduleExportSweeps, RUN_TASK as EXPORT_RUN_TASK, SWEEP_TASK as EXPORT_SWEEP_TASK } from './runs.js';
