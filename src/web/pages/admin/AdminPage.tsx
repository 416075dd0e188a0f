import { Title } from "@mantine/core";

export default function AdminPage() {
  return <Title order={1}>Admin</Title>;
}
