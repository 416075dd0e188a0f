import { Title } from "@mantine/core";

export default function FeedPage() {
  return <Title order={1}>Feed</Title>;
}
