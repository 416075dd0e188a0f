import { Title } from "@mantine/core";

export default function EventsPage() {
  return <Title order={1}>Events</Title>;
}
