import { Badge } from "@mantine/core";

export interface Retention {
  status: "EXPIRED" | "EXPIRING";
  expiresInDays: number;
}

/** The badge exactly as the API judges it: nothing when it gives none (retention off, exempt, far from expiry). */
export function RetentionBadge({ retention }: { retention: Retention | null | undefined }) {
  if (!retention) return null;
  if (retention.status === "EXPIRED") {
    return (
      <Badge color="red.9" variant="filled" title="The next retention run deletes this event">
        expired
      </Badge>
    );
  }
  return (
    <Badge color="#b33c00" variant="filled" title="Retention deletes this event when it expires">
      expires in {retention.expiresInDays}d
    </Badge>
  );
}
