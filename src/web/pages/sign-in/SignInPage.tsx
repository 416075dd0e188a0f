import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { session, SignInError } from "../../lib/session.ts";

export function SignInPage({ notice }: { notice: string | null }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await session.signIn(email, password);
    } catch (err) {
      setError(err instanceof SignInError ? err.message : "The service cannot be reached. Try again.");
      setBusy(false);
    }
  }

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={submit} aria-label="Sign in">
          <Stack>
            <Title order={1} size="h2">
              Sign in to TI Workbench
            </Title>
            {notice && (
              <Alert color="yellow" role="status">
                {notice}
              </Alert>
            )}
            {error && (
              <Alert color="red" role="alert" title="Sign-in failed">
                {error}
              </Alert>
            )}
            <TextInput label="E-mail" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
            <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
