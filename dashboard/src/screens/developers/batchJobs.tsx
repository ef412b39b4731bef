import { Badge, type BadgeProps } from '@mantine/core';
import type { getBatchJob } from '@tally-billing/sdk';

/** Query keys and display helpers shared by the batch job screens. */
export const BATCH_JOBS = ['batch-jobs'];

export type BatchJobDetail = NonNullable<Awaited<ReturnType<typeof getBatchJob>>['data']>;

export const JOB_TYPE_LABELS: Record<string, string> = {
  EVENT_CSV_IMPORT: 'Usage events',
  CUSTOMER_CSV_IMPORT: 'Customers',
  BANK_PAYMENT_CSV_IMPORT: 'Bank payments',
  SUBSCRIPTION_CSV_IMPORT: 'Subscriptions',
  SUBSCRIPTION_PLAN_MIGRATION: 'Plan migration',
};

/** A job still moving: its screen polls it until it is not. */
export const isRunning = (status: string) => status === 'PENDING' || status === 'PROCESSING' || status === 'CHUNKING';

export const STATUS_COLORS: Record<string, string> = {
  PENDING: 'gray.8',
  PROCESSING: 'indigo.8',
  COMPLETED: 'teal.9',
  // filled orange is too light for white text (axe colour contrast): yellow with black text (StatusBadge)
  COMPLETED_WITH_ERRORS: 'yellow.5',
  FAILED: 'red.9',
  CANCELLED: 'gray.8',
};

/** Rows handled (imported or failed) out of the file's rows, in percent; 0 while the rows are not counted yet. */
export function progressPercent(job: { total_items: number | null; processed_items: number; failed_items: number }): number {
  if (!job.total_items) return 0;
  return Math.min(100, Math.round(((job.processed_items + job.failed_items) / job.total_items) * 100));
}

/** A job's status as a badge; yellow ones get black text to stay readable. */
export function StatusBadge({ status, size }: { status: string; size?: BadgeProps['size'] }) {
  const color = STATUS_COLORS[status] ?? 'gray.8';
  return (
    <Badge color={color} c={color.startsWith('yellow') ? 'black' : undefined} size={size}>
      {status.replaceAll('_', ' ').toLowerCase()}
    </Badge>
  );
}
