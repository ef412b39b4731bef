// Usage metering math: event checks and exact, mergeable aggregation.
export * from './aggregation.js';
export * from './events.js';
