import { Title } from "@mantine/core";

export default function EventPage() {
  return <Title order={1}>Event</Title>;
}
