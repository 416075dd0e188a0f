import { Title } from "@mantine/core";

export default function NotificationsPage() {
  return <Title order={1}>Notifications</Title>;
}
