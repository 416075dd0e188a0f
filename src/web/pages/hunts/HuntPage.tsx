import { Title } from "@mantine/core";

export default function HuntPage() {
  return <Title order={1}>Hunt</Title>;
}
