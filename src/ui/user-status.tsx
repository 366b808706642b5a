// A user's status as shown on pages: "invited" until they set a password, matching the lists' TEAM_STATUSES.
import type { UserRow } from "../db/schema.ts";
import { Badge } from "./components.tsx";

export function UserStatus({ user }: { user: Pick<UserRow, "status" | "passwordHash"> }) {
  if (user.passwordHash !== null) return <Badge status={user.status} />;
  if (user.status === "active") return <Badge status="invited" />;
  return (
    <span class="actions">
      <Badge status={user.status} />
      <Badge status="invited" />
    </span>
  );
}
