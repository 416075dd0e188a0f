import { Stack, Title } from "@mantine/core";
import { Busy } from "../../components/Busy.tsx";
import { SectionTabs, type Section } from "../../components/SectionTabs.tsx";
import { grants, useIdentity } from "../../lib/identity.ts";
import { ApiKeysPanel } from "./ApiKeysPanel.tsx";
import { FollowsPanel } from "./FollowsPanel.tsx";
import { RetentionPanel } from "./RetentionPanel.tsx";
import { TasksPanel } from "./TasksPanel.tsx";

const SECTIONS: (Section & { scope: string })[] = [
  { slug: "api-keys", label: "API keys", scope: "api_keys:read", render: () => <ApiKeysPanel /> },
  { slug: "follows", label: "Follows", scope: "user_settings:read", render: () => <FollowsPanel /> },
  // Retention is a runtime setting: administrators (settings:update) change it.
  { slug: "retention", label: "Retention", scope: "settings:update", render: () => <RetentionPanel /> },
  { slug: "tasks", label: "Scheduled tasks", scope: "tasks:read", render: () => <TasksPanel /> },
];

/** The user's settings, one section per tab at /settings/<section>; sections the role cannot use are left out. */
export default function SettingsPage() {
  const identity = useIdentity();
  const sections = identity ? SECTIONS.filter((s) => grants(identity.scopes, s.scope)) : [];
  return (
    <Stack gap="md">
      <Title order={1}>Settings</Title>
      {!identity && <Busy label="Loading your settings" />}
      {sections.length > 0 && <SectionTabs base="/settings" sections={sections} label="Settings sections" />}
    </Stack>
  );
}
