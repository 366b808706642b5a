// A user's status as every page says it (the portal's Team, the console's account): "invited" until they set a
// password through their invitation link, as the lists count them (TEAM_STATUSES, src/users/store.ts).
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
