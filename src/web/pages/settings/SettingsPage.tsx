import { Title } from "@mantine/core";

export default function SettingsPage() {
  return <Title order={1}>Settings</Title>;
}
