import { Title } from "@mantine/core";

export default function EventEditPage() {
  return <Title order={1}>EventEdit</Title>;
}
