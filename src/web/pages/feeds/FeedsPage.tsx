import { Title } from "@mantine/core";

export default function FeedsPage() {
  return <Title order={1}>Feeds</Title>;
}
