// The operator's routes for an account's users.
import { createRoute, z } from "@hono/zod-openapi";
import { slugParams } from "../customers/schemas.ts";
import type { OperatorEnv } from "../env.ts";
import { uuidParam } from "../http/fields.ts";
import { errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { operatorOperation, operatorRead } from "../staff/roles.ts";
import {
  createUserBody,
  invitationSchema,
  invitedUserSchema,
  toInvitation,
  toUser,
  updateUserBody,
  userSchema,
} from "./schemas.ts";
import { findUser } from "./store.ts";
import { addUserAction, inviteUserAction, updateUserAction } from "./use-cases.ts";

const userIdParams = z.object({ user_id: uuidParam("user_id") });

export const userAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorOperation(addUserAction),
      method: "post",
      path: "/customers/{slug}/users",
      summary: "Create a user of an account",
      description:
        "The email is unique within the account, whatever its case (409 otherwise). The answer carries the user's " +
        "invitation link to the customer portal, where they set a password (single use, 72 hours).",
      request: { params: slugParams, body: jsonBody(createUserBody) },
      responses: {
        201: {
          ...jsonResponse(invitedUserSchema, "The new user, with their invitation link."),
          headers: locationHeader,
        },
        ...errorResponses(addUserAction.refusals),
      },
    }),
    async (c) => {
      const { user, token, expiresAt } = valueOrProblem(
        await addUserAction.run(workOf(c), c.req.valid("param").slug, c.req.valid("json")),
      );
      c.header("Location", `/admin/users/${user.id}`);
      return c.json({ ...toUser(user), ...toInvitation(publicOrigin(c), token, expiresAt) }, 201);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(inviteUserAction),
      method: "post",
      path: "/users/{user_id}/invitation",
      summary: "Issue a new invitation link",
      description:
        "A new link to set a password (also how a password is reset): single use, valid 72 hours; earlier links of the " +
        "user stop working.",
      request: { params: userIdParams },
      responses: {
        201: jsonResponse(invitationSchema, "The new invitation link."),
        ...errorResponses(inviteUserAction.refusals),
      },
    }),
    async (c) => {
      const { token, expiresAt } = valueOrProblem(await inviteUserAction.run(workOf(c), c.req.valid("param").user_id));
      return c.json(toInvitation(publicOrigin(c), token, expiresAt), 201);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getUser"),
      method: "get",
      path: "/users/{user_id}",
      summary: "Retrieve a user",
      request: { params: userIdParams },
      responses: {
        200: jsonResponse(userSchema, "The user."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const row = await findUser(c.var.db, c.req.valid("param").user_id);
      if (!row) throw notFound("User");
      return c.json(toUser(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(updateUserAction),
      method: "patch",
      path: "/users/{user_id}",
      summary: "Update a user",
      description:
        "Changes name, role or status (active also unlocks). An account's last active owner cannot be demoted, " +
        "deactivated or locked (409): make someone else an owner first.",
      request: { params: userIdParams, body: jsonBody(updateUserBody) },
      responses: {
        200: jsonResponse(userSchema, "The updated user."),
        ...errorResponses(updateUserAction.refusals),
      },
    }),
    async (c) => {
      const updated = valueOrProblem(await updateUserAction.run(workOf(c), c.req.valid("param").user_id, c.req.valid("json")));
      return c.json(toUser(updated), 200);
    },
  );
