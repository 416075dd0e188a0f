import { Button, Group } from "@mantine/core";

/**
 * A list row's Edit and Delete buttons. Delete asks first: the first press turns it into "Delete for
 * good", which does it. The names say which row they act on ("Delete user ana@example.org").
 */
export function EditDeleteActions({
  what,
  name,
  confirming,
  onEdit,
  onConfirm,
  onDelete,
}: {
  what: string;
  name: string;
  confirming: boolean;
  onEdit(): void;
  onConfirm(): void;
  onDelete(): void;
}) {
  return (
    <Group gap={4} wrap="nowrap">
      <Button size="xs" variant="default" aria-label={`Edit ${what} ${name}`} onClick={onEdit}>
        Edit
      </Button>
      {confirming ? (
        <Button size="xs" color="red.9" aria-label={`Delete for good: ${what} ${name}`} onClick={onDelete}>
          Delete for good
        </Button>
      ) : (
        <Button size="xs" variant="default" aria-label={`Delete ${what} ${name}`} onClick={onConfirm}>
          Delete
        </Button>
      )}
    </Group>
  );
}
