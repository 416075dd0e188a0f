import { AppShell, Burger, Button, Group, NavLink, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Suspense } from "react";
import { Link, Redirect, Route, Switch, useLocation } from "wouter";
import { Busy } from "../components/Busy.tsx";
import { session } from "../lib/session.ts";
import { grants, useIdentity } from "../lib/identity.ts";
import { NotificationBell } from "./NotificationBell.tsx";
import { NotFoundPage } from "./NotFoundPage.tsx";
import { navEntries, pageRoutes } from "./routes.tsx";

export function AppLayout() {
  const [opened, { toggle, close }] = useDisclosure();
  const [location] = useLocation();
  const identity = useIdentity();
  // users:me alone (every role has it) is no administrator: users:* (or *) is.
  const isAdmin = identity ? grants(identity.scopes, "users:*") : false;

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={opened ? "Close navigation" : "Open navigation"} />
            <Title order={2} size="h4">
              <Link href="/explore" style={{ color: "inherit", textDecoration: "none" }}>
                TI Workbench
              </Link>
            </Title>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <NotificationBell />
            <Text size="sm" c="dimmed" visibleFrom="sm">
              {identity?.email}
            </Text>
            <Button variant="subtle" size="compact-sm" onClick={() => void session.signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Main">
        {navEntries
          .filter((e) => !e.admin || isAdmin)
          .map((e) => (
            <NavLink
              key={e.to}
              component={Link}
              href={e.to}
              label={e.label}
              active={location === e.to || location.startsWith(`${e.to}/`)}
              onClick={close}
            />
          ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<Busy label="Loading the page" />}>
          <Switch>
            <Route path="/">
              <Redirect to="/explore" replace />
            </Route>
            {pageRoutes.map(({ path, page: Page }) => (
              <Route key={path} path={path}>
                <Page />
              </Route>
            ))}
            <Route>
              <NotFoundPage />
            </Route>
          </Switch>
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
