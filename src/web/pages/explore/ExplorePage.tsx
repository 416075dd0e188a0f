import { Title } from "@mantine/core";

export default function ExplorePage() {
  return <Title order={1}>Explore</Title>;
}
