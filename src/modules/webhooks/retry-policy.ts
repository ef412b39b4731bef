import { MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from '../../kernel/clock.js';

/**
 * Wait before attempt n+1 after the n-th failed attempt. Exponential-ish, like the Standard
 * Webhooks reference schedule but stretched to about three days: 10 attempts over 71 h 35 min 5 s.
 * No jitter, so retry times are predictable for merchants and tests.
 */
export const RETRY_DELAYS_MS = [
  5 * MS_PER_SECOND,
  5 * MS_PER_MINUTE,
  30 * MS_PER_MINUTE,
  2 * MS_PER_HOUR,
  5 * MS_PER_HOUR,
  10 * MS_PER_HOUR,
  14 * MS_PER_HOUR,
  20 * MS_PER_HOUR,
  20 * MS_PER_HOUR,
] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An endpoint whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * MS_PER_DAY;

/** When to try again after `attemptCount` failed attempts, or null when the delivery has failed for good. */
export function nextAttemptAt(attemptCount: number, now: Date): Date | null {
  if (attemptCount >= MAX_ATTEMPTS) return null;
  return new Date(now.getTime() + RETRY_DELAYS_MS[attemptCount - 1]!);
}

export function shouldDisableEndpoint(failingSince: Date, now: Date): boolean {
  return now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
}
