import { Center, Loader } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { getSession, type GetSessionResponse } from '@tally-billing/sdk';
import { ApiError, toApiError } from './api';
import { client, configureClient } from './client';

export type Environment = 'production' | 'sandbox';

export type SessionInfo = GetSessionResponse;

export interface Session extends SessionInfo {
  organization: SessionInfo['organizations'][number] | undefined;
  environment: Environment;
  /** The tenant every API call acts on: the chosen organization's tenant of the chosen environment. */
  tenantId: string | undefined;
  chooseOrganization: (id: string) => void;
  chooseEnvironment: (environment: Environment) => void;
}

const SessionContext = createContext<Session | undefined>(undefined);

/** The chosen organization and environment outlive a reload (this browser only). */
const STORED = { organization: 'dashboard.organization', environment: 'dashboard.environment' } as const;

/** Who is signed in, their organizations and tenants, the CSRF token (docs/dashboard-api.md). */
async function loadSession(): Promise<SessionInfo> {
  try {
    return (await getSession({ client })).data;
  } catch (error) {
    throw toApiError(error);
  }
}

/** Sends a signed-out visitor to the sign-in page, which brings them back here. */
function signIn(): void {
  window.location.assign(`/signin?return_to=${encodeURIComponent(window.location.pathname + window.location.search)}`);
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const info = useQuery({ queryKey: ['session'], queryFn: loadSession, staleTime: Infinity, retry: false });
  const [organizationId, setOrganizationId] = useState(() => localStorage.getItem(STORED.organization));
  const [environment, setEnvironment] = useState<Environment>(() => (localStorage.getItem(STORED.environment) === 'production' ? 'production' : 'sandbox'));

  useEffect(() => {
    if (info.error instanceof ApiError && info.error.status === 401) signIn();
  }, [info.error]);

  const data = info.data;
  const organization = data?.organizations.find((o) => o.id === organizationId) ?? data?.organizations.find((o) => o.id === data.selected_organization_id) ?? data?.organizations[0];
  const tenantId = organization?.tenants.find((t) => t.environment === environment)?.id;

  // Every API call from now on acts on this tenant.
  if (data) configureClient({ csrfToken: data.csrf_token, tenantId });

  // What was cached belongs to the previous tenant: dropped before the screens re-mount (the
  // layout keys them by tenant), so nothing of one environment shows in the other.
  const forgetTenantData = useCallback(() => queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' }), [queryClient]);
  const chooseOrganization = useCallback((id: string) => {
    localStorage.setItem(STORED.organization, id);
    forgetTenantData();
    setOrganizationId(id);
  }, [forgetTenantData]);
  const chooseEnvironment = useCallback((value: Environment) => {
    localStorage.setItem(STORED.environment, value);
    forgetTenantData();
    setEnvironment(value);
  }, [forgetTenantData]);

  const session = useMemo(() => (data ? { ...data, organization, environment, tenantId, chooseOrganization, chooseEnvironment } : undefined), [data, organization, environment, tenantId, chooseOrganization, chooseEnvironment]);

  if (!session) {
    return (
      <Center h="100vh" role="status" aria-label="Loading your account">
        {info.error && !(info.error instanceof ApiError && info.error.status === 401) ? `The service did not answer: ${info.error.message}. Reload the page to try again.` : <Loader />}
      </Center>
    );
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
