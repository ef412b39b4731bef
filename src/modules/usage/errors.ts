// How the usage module refuses an event. Callers decide on `kind` (an HTTP status, a CSV import
// failure), never on the wording of `reason`, which is for people and may change.
import { badRequest, conflict, type AppError } from '../../kernel/errors.js';

/**
 * INVALID_EVENT: the event itself is wrong (fields, dates, customer, code, a duplicate id inside
 * the batch): 400. PAYLOAD_CONFLICT: its id was already ingested with another payload: 409.
 */
export type IngestFailureKind = 'INVALID_EVENT' | 'PAYLOAD_CONFLICT';

export interface IngestFailure {
  index: number;
  event_id: string;
  /** Names the field and what was expected. */
  reason: string;
  kind: IngestFailureKind;
}

/** The error a refused single event answers with. */
export function ingestFailureError(failure: IngestFailure): AppError {
  return failure.kind === 'PAYLOAD_CONFLICT' ? conflict(failure.reason) : badRequest(failure.reason);
}
