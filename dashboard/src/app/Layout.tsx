import { Alert, AppShell, Badge, Box, Burger, Group, NavLink, ScrollArea, SegmentedControl, Select, Text, Title, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense, useEffect } from 'react';
import { Link, Outlet, useLocation, useMatches } from 'react-router';
import { NAV_SECTIONS, screens } from '../routes';
import { PageLoader } from '../components/PageLoader';
import { useSession, type Environment } from './session';

/** The frame around every screen: header with organization and environment, side navigation, content. */
export function Layout() {
  const session = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const matches = useMatches();
  const title = (matches.at(-1)?.handle as { title?: string } | undefined)?.title ?? 'Dashboard';
  const sandbox = session.environment === 'sandbox';

  useEffect(() => {
    document.title = `${title} · ${sandbox ? 'Sandbox' : 'Production'} · Billing`;
  }, [title, sandbox]);
  useEffect(close, [location.pathname, close]);

  return (
    <AppShell header={{ height: sandbox ? 96 : 60 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        {sandbox && (
          <Alert color="orange" variant="filled" radius={0} py={6} role="note" aria-label="Sandbox">
            <Text size="sm" fw={600} c="black">
              Sandbox: test data. Nothing here charges a card or reaches a real customer.
            </Text>
          </Alert>
        )}
        <Group h={60} px="md" justify="space-between" wrap="nowrap" style={{ borderBottom: `4px solid var(--mantine-color-${sandbox ? 'orange-6' : 'green-7'})` }}>
          <Group wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Open navigation" />
            <UnstyledButton component={Link} to="/" aria-label="Billing home">
              <Title order={2} size="h4" visibleFrom="xs">
                Billing
              </Title>
            </UnstyledButton>
            {/* teal.9: white on Mantine's green (even green.9) fails axe's contrast check for this small text */}
            <Badge color={sandbox ? 'orange' : 'teal.9'} variant="filled" c={sandbox ? 'black' : 'white'}>
              {sandbox ? 'Sandbox' : 'Production'}
            </Badge>
          </Group>
          <Group wrap="nowrap" gap="sm">
            {/* On a phone the organization picker moves into the navigation, so the environment switch always fits */}
            <Box visibleFrom="sm">
              <OrganizationPicker />
            </Box>
            <div>
              <Text component="span" size="xs" fw={500} id="environment-label" display="block">
                Environment
              </Text>
              <SegmentedControl
                size="xs"
                aria-labelledby="environment-label"
                value={session.environment}
                onChange={(value) => session.chooseEnvironment(value as Environment)}
                data={[
                  { value: 'production', label: 'Production' },
                  { value: 'sandbox', label: 'Sandbox' },
                ]}
              />
            </div>
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="xs" aria-label="Main">
        <Box hiddenFrom="sm" px="sm">
          <OrganizationPicker />
        </Box>
        <ScrollArea style={{ flex: 1 }}>
          {NAV_SECTIONS.map((section) => {
            const items = screens.filter((s) => s.nav?.section === section);
            if (items.length === 0) return null;
            return (
              <nav key={section} aria-labelledby={`nav-${section}`}>
                <Text id={`nav-${section}`} size="xs" fw={700} tt="uppercase" c="gray.7" px="sm" mt="md" mb={4}>
                  {section}
                </Text>
                {items.map((s) => (
                  <NavLink key={s.path} component={Link} to={s.path} label={s.nav!.label} active={s.path === '/' ? location.pathname === '/' : location.pathname.startsWith(s.path)} />
                ))}
              </nav>
            );
          })}
        </ScrollArea>
        <form method="post" action="/signout">
          <Text size="xs" c="gray.7" px="sm" truncate>
            {session.user.email}
          </Text>
          <input type="hidden" name="_csrf" value={session.csrf_token} />
          <NavLink component="a" href="/account" label="Account and organizations" />
          <UnstyledButton type="submit" px="sm" py={6} fz="sm">
            Sign out
          </UnstyledButton>
        </form>
      </AppShell.Navbar>

      <AppShell.Main>
        {session.organizations.length === 0 ? (
          <Alert color="indigo" title="No organization yet">
            Create an organization on your <a href="/account">account page</a>; it comes with a production and a sandbox environment.
          </Alert>
        ) : (
          <Suspense fallback={<PageLoader />}>
            <Outlet key={session.tenantId} />
          </Suspense>
        )}
      </AppShell.Main>
    </AppShell>
  );
}

/** The organization every screen acts on (one of the session's). */
function OrganizationPicker() {
  const session = useSession();
  if (session.organizations.length === 0) return null;
  return (
    <Select
      label="Organization"
      size="xs"
      w={200}
      allowDeselect={false}
      data={session.organizations.map((o) => ({ value: o.id, label: o.name }))}
      value={session.organization?.id ?? null}
      onChange={(id) => id && session.chooseOrganization(id)}
    />
  );
}
