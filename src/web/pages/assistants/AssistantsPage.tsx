import { Alert, Button, Code, CopyButton, Group, NativeSelect, Paper, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useMutation } from "urql";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { graphql } from "../../gql/index.ts";

const CreateMcpConfig = graphql(`
  mutation CreateMcpConfig($expiresIn: Int) {
    mcpConfig(expiresIn: $expiresIn) {
      apiKeyId
      url
      scopes
      expiresAt
      config
    }
  }
`);

const RevokeMcpKey = graphql(`
  mutation RevokeMcpKey($id: Int!) {
    deleteApiKey(id: $id)
  }
`);

const LIFETIMES = [
  { value: String(86_400), label: "1 day" },
  { value: String(7 * 86_400), label: "7 days" },
  { value: String(30 * 86_400), label: "30 days" },
];

/**
 * Connecting an AI assistant (Claude Desktop, an IDE agent...) over MCP: mints a read-only MCP
 * credential and shows the client configuration holding it, once.
 */
export default function AssistantsPage() {
  const [lifetime, setLifetime] = useState(LIFETIMES[1]!.value);
  const [created, create] = useMutation(CreateMcpConfig);
  const [revoked, revoke] = useMutation(RevokeMcpKey);
  const config = created.data?.mcpConfig;
  const configText = config ? JSON.stringify(config.config, null, 2) : "";

  return (
    <Stack maw={860}>
      <Title order={1}>AI assistants (MCP)</Title>
      <Text>
        Give an MCP client (an AI assistant) read access to the intelligence you can read: it can search events and attributes, read events,
        correlations, sightings and hunts, with your organisation's visibility and nothing more.
      </Text>
      <Paper withBorder p="md" component="section" aria-labelledby="mcp-new">
        <Stack>
          <Title order={2} size="h4" id="mcp-new">
            New client configuration
          </Title>
          <Group align="end">
            <NativeSelect label="Valid for" data={LIFETIMES} value={lifetime} onChange={(e) => setLifetime(e.currentTarget.value)} w={160} />
            <Button loading={created.fetching} onClick={() => void create({ expiresIn: Number(lifetime) })}>
              Create MCP configuration
            </Button>
          </Group>
          {created.error && <ErrorAlert error={created.error} title="The configuration was not created" />}
        </Stack>
      </Paper>
      {config && (
        <Paper withBorder p="md" component="section" aria-labelledby="mcp-created">
          <Stack>
            <Title order={2} size="h4" id="mcp-created">
              Your client configuration
            </Title>
            <Alert color="yellow" role="status">
              It holds a secret shown only now: copy it into your MCP client's configuration. It works until <Timestamp value={config.expiresAt} />.
            </Alert>
            <Text size="sm">
              Endpoint <Code>{config.url}</Code>, scopes {config.scopes.join(", ")}.
            </Text>
            <Code block tabIndex={0} aria-label="MCP client configuration" data-testid="mcp-config">
              {configText}
            </Code>
            <Group>
              <CopyButton value={configText}>
                {({ copied, copy }) => (
                  <Button variant="light" onClick={copy}>
                    {copied ? "Copied" : "Copy configuration"}
                  </Button>
                )}
              </CopyButton>
              <Button
                color="red"
                variant="outline"
                loading={revoked.fetching}
                disabled={revoked.data?.deleteApiKey === true}
                onClick={() => void revoke({ id: config.apiKeyId })}
              >
                {revoked.data?.deleteApiKey ? "Revoked" : "Revoke this credential"}
              </Button>
            </Group>
            {revoked.error && <ErrorAlert error={revoked.error} title="The credential was not revoked" />}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
