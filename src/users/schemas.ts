// Wire format of users.
import { z } from "@hono/zod-openapi";
import { USER_ROLES, USER_STATUSES, type UserRow } from "../db/schema.ts";
import { singleLineText, timestampSchema } from "../http/fields.ts";
import { commaList, countedPageSchema, pageQuery, searchQuery, sortByQuery, statusCountsSchema } from "../http/pagination.ts";
import { toIso, toIsoOrNull } from "../lib/time.ts";
import { TEAM_STATUSES, type TeamListQuery, USER_SORT_KEYS, type UserListQuery } from "./store.ts";

export const userSchema = z
  .object({
    user_id: z.uuid(),
    email: z.string().openapi({ example: "ada@example.com" }),
    name: z.string().openapi({ example: "Ada Lovelace" }),
    role: z.enum(USER_ROLES),
    status: z.enum(USER_STATUSES),
    last_login_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .openapi("User");

export const invitationSchema = z
  .object({
    invitation_url: z.string().openapi({
      description: "Where the user sets a password: single use, valid 72 hours. Only this answer shows it.",
      example: "https://api.example.com/portal/invitations/3q2-7wEAAAA…",
    }),
    invitation_expires_at: timestampSchema,
  })
  .openapi("Invitation");

/** A new user, with the invitation link that lets them set a password. */
export const invitedUserSchema = userSchema.extend(invitationSchema.shape).openapi("InvitedUser");

/** The link of an invitation token, under `origin`. */
export function toInvitation(origin: string, token: string, expiresAt: number): z.infer<typeof invitationSchema> {
  return { invitation_url: `${origin}/portal/invitations/${token}`, invitation_expires_at: toIso(expiresAt) };
}

export function toUser(row: UserRow): z.infer<typeof userSchema> {
  return {
    user_id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    last_login_at: toIsoOrNull(row.lastLoginAt),
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export const listUsersQuery = z.object({
  ...pageQuery,
  search: searchQuery.openapi({
    description: "Case-insensitive substring of the email or name.",
  }),
  status: commaList(z.enum(USER_STATUSES), "status", "User statuses."),
  role: commaList(z.enum(USER_ROLES), "role", "User roles."),
  sort_by: sortByQuery(USER_SORT_KEYS, "created_at"),
});

export function toUserListQuery(q: z.infer<typeof listUsersQuery>): UserListQuery {
  return {
    search: q.search,
    statuses: q.status,
    roles: q.role,
    sortBy: q.sort_by,
    sortOrder: q.sort_order,
  };
}

/** The pages' list of users: the API's query, with invited people a status of their own (TEAM_STATUSES). */
export const teamListQuery = listUsersQuery.extend({
  status: commaList(z.enum(TEAM_STATUSES), "status", "Statuses, invited people apart."),
});

export function toTeamListQuery(q: z.infer<typeof teamListQuery>): TeamListQuery {
  return { ...toUserListQuery({ ...q, status: undefined }), statuses: q.status };
}

export const userPageSchema = countedPageSchema(userSchema, "User", statusCountsSchema(USER_STATUSES, "UserStatusCounts"));

const userName = singleLineText().trim().min(1).max(200).openapi({ example: "Ada Lovelace" });

export const createUserBody = z
  .strictObject({
    email: z.email().max(254).openapi({ example: "ada@example.com" }),
    name: userName,
    role: z.enum(USER_ROLES),
    status: z.enum(USER_STATUSES).optional().openapi({ description: "Default active." }),
  })
  .openapi("CreateUser");

export const updateUserBody = z
  .strictObject({
    name: userName.optional(),
    role: z.enum(USER_ROLES).optional(),
    status: z.enum(USER_STATUSES).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    error: "must contain at least one field to change",
  })
  .openapi("UpdateUser");
