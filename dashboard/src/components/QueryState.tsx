import { Alert } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { toApiError } from '../app/api';
import { NotFound } from './NotFound';
import { PageLoader } from './PageLoader';

/**
 * Renders a query's data, or its loading, not-found (`notFound` names the thing: a 404 is an id
 * of another tenant or none) or error state, so screens only write the happy path.
 */
export function QueryState<T>({ query, notFound, children }: { query: UseQueryResult<T>; notFound?: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <PageLoader />;
  if (query.isError) {
    const error = toApiError(query.error);
    if (notFound && error.status === 404) return <NotFound what={notFound} />;
    return <ErrorAlert error={error} />;
  }
  return <>{children(query.data)}</>;
}

/** An API refusal for the whole screen or form, announced to screen readers. */
export function ErrorAlert({ error, title = 'The service refused this' }: { error: unknown; title?: string }) {
  const e = toApiError(error);
  return (
    <Alert color="red" title={title} role="alert" my="sm">
      {e.message}
    </Alert>
  );
}
