// What the composition root may use from test clocks (docs/test-clocks.md).
export { createTestClocksModule } from './module.js';
export type { TestClocksService } from './service.js';
export type { ClockDrivenWork } from './advance.js';
/** A test clock's frozen time: the reader the modules before this one receive (`TestClockTime`). */
export { frozenTimeOf as testClockTime } from './repository.js';
