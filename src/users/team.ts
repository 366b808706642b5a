// The rules of managing an account's team, in one place for every page and route that changes a user: who may change
// whom, who may issue whose password link, and what no change may do (leave the account without an active owner,
// deactivate oneself). The store's guarded write (updateTeammate) holds them against concurrent changes.
import type { Database } from "../db/client.ts";
import type { UserRole, UserRow } from "../db/schema.ts";
import { issueInvitation } from "./credentials.ts";
import { createUser, findUser, type UserChanges, updateTeammate } from "./store.ts";

/** Who is acting: a signed-in owner or admin of the account. */
export interface TeamActor {
  id: string;
  role: UserRole;
  customerId: string;
}

export type TeamRefusal =
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "duplicate" }
  | { ok: false; reason: "refused"; message: string };

export type TeamOutcome<T> = { ok: true; value: T } | TeamRefusal;

const ADMIN_VS_OWNER = "Only an owner can change an owner or make someone an owner.";
const ADMIN_VS_ADMIN = "Only an owner can change another admin.";
const LAST_OWNER = "The account's last active owner cannot be demoted or deactivated: make someone else an owner first.";
const SELF_DEACTIVATION = "You cannot deactivate or lock yourself: ask another owner or admin.";
const CHANGED = "This user was changed meanwhile: look again and retry.";
const LINK_FOR_ADMIN = "Only an owner can issue a new link for an owner or an admin: whoever holds the link sets their password.";

function refused(message: string): TeamRefusal {
  return { ok: false, reason: "refused", message };
}

/**
 * Why the actor may not touch this user at all, or null: an admin changes members and themselves only. Whoever may
 * change a user may lower their role, then issue them a password link: so an admin touching another admin could take
 * that admin's account over.
 */
export function touchProblem(actor: TeamActor, target: Pick<UserRow, "id" | "role">): string | null {
  if (actor.role === "owner") return null;
  if (target.role === "owner") return ADMIN_VS_OWNER;
  return target.role === "admin" && target.id !== actor.id ? ADMIN_VS_ADMIN : null;
}

/** The account's user with this id, or undefined (another account's user is not found either). */
async function teammate(db: Database, actor: TeamActor, userId: string): Promise<UserRow | undefined> {
  const user = await findUser(db, userId);
  return user?.customerId === actor.customerId ? user : undefined;
}

/**
 * Changes a teammate's role or status under the team's rules: an admin changes no owner and makes no one an owner;
 * nobody deactivates or locks themselves; the last active owner stays an active owner (asserted by the write itself).
 */
export async function changeTeammate(
  db: Database,
  actor: TeamActor,
  userId: string,
  changes: Pick<UserChanges, "role" | "status">,
  now: number,
): Promise<TeamOutcome<UserRow>> {
  const target = await teammate(db, actor, userId);
  if (!target) return { ok: false, reason: "not_found" };
  const problem = touchProblem(actor, target) ?? (actor.role !== "owner" && changes.role === "owner" ? ADMIN_VS_OWNER : null);
  if (problem) return refused(problem);
  if (target.id === actor.id && changes.status !== undefined && changes.status !== "active") return refused(SELF_DEACTIVATION);
  return guardedChange(db, target, changes, now);
}

/**
 * The operator's change of any account's user (name, role, status): the operator may change anyone, but the last
 * active owner of an account stays an active owner, as in the portal.
 */
export async function changeUser(db: Database, userId: string, changes: UserChanges, now: number): Promise<TeamOutcome<UserRow>> {
  const target = await findUser(db, userId);
  if (!target) return { ok: false, reason: "not_found" };
  return guardedChange(db, target, changes, now);
}

/** Writes a change decided on `target` as read, only while it is still so, keeping the account's last active owner. */
async function guardedChange(db: Database, target: UserRow, changes: UserChanges, now: number): Promise<TeamOutcome<UserRow>> {
  const losesOwner =
    target.role === "owner" &&
    target.status === "active" &&
    ((changes.role !== undefined && changes.role !== "owner") || (changes.status !== undefined && changes.status !== "active"));
  const seen = { customerId: target.customerId, role: target.role, status: target.status };
  const updated = await updateTeammate(db, target.id, seen, changes, losesOwner, now);
  if (updated.ok) return updated;
  return refused(updated.state === "last_active_owner" ? LAST_OWNER : CHANGED);
}

/** A new teammate, active, with the token of their invitation link; an admin cannot invite an owner. */
export async function inviteTeammate(
  db: Database,
  actor: TeamActor & { customerSlug: string },
  user: { email: string; name: string; role: UserRole },
  now: number,
): Promise<TeamOutcome<{ user: UserRow; token: string; expiresAt: number }>> {
  if (actor.role !== "owner" && user.role === "owner") return refused(ADMIN_VS_OWNER);
  const created = await createUser(db, actor.customerSlug, { ...user, status: "active" }, now);
  if (!created.ok)
    return created.reason === "duplicate" ? { ok: false, reason: "duplicate" } : { ok: false, reason: "not_found" };
  const invitation = await issueInvitation(db, created.value.id, now);
  if (!invitation.ok) return { ok: false, reason: "not_found" };
  return { ok: true, value: { user: created.value, token: invitation.value.token, expiresAt: invitation.value.expiresAt } };
}

/**
 * A new invitation link for a teammate (how a password is reset; earlier links stop working). Whoever holds the link
 * sets the password, so an admin issues one only for a member or for themselves: an owner's or another admin's link
 * would hand the admin that account.
 */
export async function reinviteTeammate(
  db: Database,
  actor: TeamActor,
  userId: string,
  now: number,
): Promise<TeamOutcome<{ user: UserRow; token: string; expiresAt: number }>> {
  const target = await teammate(db, actor, userId);
  if (!target) return { ok: false, reason: "not_found" };
  if (touchProblem(actor, target)) return refused(LINK_FOR_ADMIN);
  const invitation = await issueInvitation(db, target.id, now);
  return invitation.ok ? { ok: true, value: invitation.value } : { ok: false, reason: "not_found" };
}
