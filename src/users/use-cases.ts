// User actions shared by the operator's routes and the portal's Team page. The store's guarded write (updateTeammate)
// holds the rules against concurrent changes.
import type { UserRole, UserRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, fieldProblem, notFound, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { ADMIN, operatorAction } from "../staff/roles.ts";
import { issueInvitation } from "./credentials.ts";
import { createUser, findUser, type NewUser, type UserChanges, updateTeammate } from "./store.ts";

/** Who is acting in the portal: a signed-in owner or admin of the account. */
export interface TeamActor {
  id: string;
  role: UserRole;
  customerId: string;
}

/** A user with the token of their new password link, and when it expires. */
export interface InvitedUser {
  user: UserRow;
  token: string;
  expiresAt: number;
}

const ADMIN_VS_OWNER = "Only an owner can change an owner or make someone an owner";
const ADMIN_VS_ADMIN = "Only an owner can change another admin";
const LAST_OWNER = "The account's last active owner cannot be demoted or deactivated: make someone else an owner first";
const SELF_DEACTIVATION = "You cannot deactivate or lock yourself: ask another owner or admin";
const CHANGED = "This user was changed meanwhile: look again and retry";
const LINK_FOR_ADMIN = "Only an owner can issue a new link for an owner or an admin: whoever holds the link sets their password";

/** Every change of a user, and each new password link: the user is not found, or the rules refuse (409). */
const USER_REFUSALS = refusals("not_found", "conflict");
type UserResult<T> = Result<T, typeof USER_REFUSALS>;

function conflict(message: string): { ok: false; problem: Problem<"conflict"> } {
  return refused(new Problem("conflict", message));
}

/**
 * Why the actor may not touch this user at all (a message for the page), or null: an admin changes members and
 * themselves only. Whoever may change a user may lower their role, then issue them a password link: so an admin
 * touching another admin could take that admin's account over. (Pages offer no control this refuses.)
 */
export function whyUntouchable(actor: TeamActor, target: Pick<UserRow, "id" | "role">): string | null {
  if (actor.role === "owner") return null;
  if (target.role === "owner") return ADMIN_VS_OWNER;
  return target.role === "admin" && target.id !== actor.id ? ADMIN_VS_ADMIN : null;
}

/** The roles the actor may give: an admin gives no owner role. */
export function assignableRoles(actor: Pick<TeamActor, "role">, roles: readonly UserRole[]): readonly UserRole[] {
  return actor.role === "owner" ? roles : roles.filter((role) => role !== "owner");
}

/** The account's user with this id, or undefined (another account's user is not found either). */
async function teammate(work: Work, actor: TeamActor, userId: string): Promise<UserRow | undefined> {
  const user = await findUser(work.db, userId);
  return user?.customerId === actor.customerId ? user : undefined;
}

/** Writes a change decided on `target` as read, only while it is still so, keeping the account's last active owner. */
async function guardedChange(work: Work, target: UserRow, changes: UserChanges): Promise<UserResult<UserRow>> {
  const losesOwner =
    target.role === "owner" &&
    target.status === "active" &&
    ((changes.role !== undefined && changes.role !== "owner") || (changes.status !== undefined && changes.status !== "active"));
  const seen = { customerId: target.customerId, role: target.role, status: target.status };
  const updated = await updateTeammate(work.db, work, target.id, seen, changes, losesOwner, work.now);
  if (updated.ok) return done(updated.value);
  return conflict(updated.state === "last_active_owner" ? LAST_OWNER : CHANGED);
}

/** A new user of the account with this slug, and their first password link. */
async function addUser(work: Work, customerSlug: string, user: NewUser): Promise<UserResult<InvitedUser>> {
  const created = await createUser(work.db, work, customerSlug, user, work.now);
  if (!created.ok) {
    if (created.reason === "not_found") return refused(notFound("Customer"));
    return refused(
      fieldProblem("conflict", "This account already has a user with this e-mail", "/email", "is taken in this account"),
    );
  }
  return issueLink(work, created.value.id);
}

/** A user's new password link (earlier links stop working): the operator's for anyone, or after the team's rules. */
async function issueLink(work: Work, userId: string): Promise<UserResult<InvitedUser>> {
  const invitation = await issueInvitation(work.db, work, userId, work.now);
  return invitation.ok ? done(invitation.value) : refused(notFound("User"));
}

/** The operator's change of any account's user: anyone may be changed, but an account keeps an active owner. */
async function changeUser(work: Work, userId: string, changes: UserChanges): Promise<UserResult<UserRow>> {
  const target = await findUser(work.db, userId);
  return target ? guardedChange(work, target, changes) : refused(notFound("User"));
}

/** A new teammate, active, with their password link; an admin cannot invite an owner. */
export async function inviteTeammate(
  work: Work,
  actor: TeamActor & { customerSlug: string },
  user: Pick<NewUser, "email" | "name" | "role">,
): Promise<UserResult<InvitedUser>> {
  if (actor.role !== "owner" && user.role === "owner") return conflict(ADMIN_VS_OWNER);
  return addUser(work, actor.customerSlug, { ...user, status: "active" });
}

/** A teammate's role or status changed under the team's rules; nobody deactivates or locks themselves. */
export async function changeTeammate(
  work: Work,
  actor: TeamActor,
  userId: string,
  changes: Pick<UserChanges, "role" | "status">,
): Promise<UserResult<UserRow>> {
  const target = await teammate(work, actor, userId);
  if (!target) return refused(notFound("User"));
  const problem = whyUntouchable(actor, target) ?? (actor.role !== "owner" && changes.role === "owner" ? ADMIN_VS_OWNER : null);
  if (problem) return conflict(problem);
  if (target.id === actor.id && changes.status !== undefined && changes.status !== "active") return conflict(SELF_DEACTIVATION);
  return guardedChange(work, target, changes);
}

/**
 * A teammate's new password link (how a password is reset; earlier links stop working). Whoever holds the link sets
 * the password, so an admin issues one only for a member or for themselves.
 */
export async function reinviteTeammate(work: Work, actor: TeamActor, userId: string): Promise<UserResult<InvitedUser>> {
  const target = await teammate(work, actor, userId);
  if (!target) return refused(notFound("User"));
  if (whyUntouchable(actor, target)) return conflict(LINK_FOR_ADMIN);
  return issueLink(work, target.id);
}

export const addUserAction = operatorAction({
  operationId: "createUser",
  roles: ADMIN,
  refusals: USER_REFUSALS,
  run: addUser,
});

export const inviteUserAction = operatorAction({
  operationId: "inviteUser",
  roles: ADMIN,
  refusals: USER_REFUSALS,
  run: issueLink,
});

export const updateUserAction = operatorAction({
  operationId: "updateUser",
  roles: ADMIN,
  refusals: USER_REFUSALS,
  run: changeUser,
});
