import { Stack, Title } from "@mantine/core";
import { SectionTabs, type Section } from "../../components/SectionTabs.tsx";
import { ApiKeysAdminPanel } from "./ApiKeysAdminPanel.tsx";
import { AuditPanel } from "./AuditPanel.tsx";
import { OrganisationsPanel } from "./OrganisationsPanel.tsx";
import { RolesPanel } from "./RolesPanel.tsx";
import { UsersPanel } from "./UsersPanel.tsx";

const SECTIONS: Section[] = [
  { slug: "users", label: "Users", render: () => <UsersPanel /> },
  { slug: "roles", label: "Roles", render: () => <RolesPanel /> },
  { slug: "organisations", label: "Organisations", render: () => <OrganisationsPanel /> },
  { slug: "api-keys", label: "API keys", render: () => <ApiKeysAdminPanel /> },
  { slug: "audit", label: "Audit log", render: () => <AuditPanel /> },
];

/**
 * Administration at /admin/<section>. The navigation shows it to administrators only; anyone else
 * who opens the address gets the API's own refusal in each section.
 */
export default function AdminPage() {
  return (
    <Stack gap="md">
      <Title order={1}>Administration</Title>
      <SectionTabs base="/admin" sections={SECTIONS} label="Administration sections" />
    </Stack>
  );
}
