import { Button, Stack, Text, Title } from "@mantine/core";
import { Link } from "wouter";

export function NotFoundPage() {
  return (
    <Stack align="flex-start">
      <Title order={1}>Page not found</Title>
      <Text>There is no page at this address.</Text>
      <Button component={Link} href="/explore">
        Go to Explore
      </Button>
    </Stack>
  );
}
