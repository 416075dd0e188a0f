import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { useEffect, useMemo, useSyncExternalStore } from "react";
import { Provider as UrqlProvider } from "urql";
import { Busy } from "../components/Busy.tsx";
import { createGraphqlClient } from "../lib/graphql-client.ts";
import { session } from "../lib/session.ts";
import { SignInPage } from "../pages/sign-in/SignInPage.tsx";
import { AppLayout } from "./AppLayout.tsx";
import { contrastVariables, theme } from "./theme.ts";

export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={contrastVariables}>
      <Notifications position="top-right" limit={4} />
      <SessionGate />
    </MantineProvider>
  );
}

/**
 * Signed out, the sign-in form replaces the page in place: the address stays, so after signing in
 * the user is back where they were (also when their session expired mid-work).
 */
function SessionGate() {
  const state = useSyncExternalStore(session.subscribe, session.snapshot);
  useEffect(() => void session.restore(), []);
  if (state.status === "restoring") {
    return <Busy label="Restoring your session" minHeight="100vh" />;
  }
  if (state.status === "signed-out") return <SignInPage notice={state.notice} />;
  return <SignedIn />;
}

function SignedIn() {
  const { client, dispose } = useMemo(createGraphqlClient, []);
  useEffect(() => dispose, [dispose]);
  return (
    <UrqlProvider value={client}>
      <AppLayout />
    </UrqlProvider>
  );
}
