import { Title } from "@mantine/core";

export default function HuntEditPage() {
  return <Title order={1}>HuntEdit</Title>;
}
