import { Title } from "@mantine/core";

export default function HuntsPage() {
  return <Title order={1}>Hunts</Title>;
}
