// The users list of the customer API, and the operator's user management.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { requireCustomer } from "../admin/require-customer.ts";
import { slugSchema } from "../admin/schemas.ts";
import type { AppEnv } from "../env.ts";
import { ADMIN_SECURITY, API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { pageMeta, pageWindow } from "../http/pagination.ts";
import { ApiError, notFound } from "../http/problem.ts";
import { validationHook } from "../http/validation.ts";
import { uuidParam } from "../lib/ids.ts";
import { customerSlugParam } from "../orders/schemas.ts";
import { createUserBody, listUsersQuery, toUser, updateUserBody, userPageSchema, userSchema } from "./schemas.ts";
import { createUser, findUser, listUsers, updateUser } from "./store.ts";

const listRoute = createRoute({
  method: "get",
  path: "/api/customers/{customer_slug}/users",
  tags: ["Users"],
  summary: "List users",
  description: "A page of the account's users. meta.status_counts counts every status over the other filters.",
  security: API_KEY_SECURITY,
  request: { params: z.object({ customer_slug: customerSlugParam }), query: listUsersQuery },
  responses: { 200: jsonResponse(userPageSchema, "A page of users."), ...errorResponses(400, 401, 404, 429) },
});

const createUserRoute = createRoute({
  method: "post",
  path: "/admin/customers/{slug}/users",
  tags: ["Admin"],
  summary: "Create a user of an account",
  description: "The email is unique within the account, whatever its case (409 otherwise).",
  security: ADMIN_SECURITY,
  request: { params: z.object({ slug: slugSchema.openapi({ param: { name: "slug", in: "path" } }) }), body: jsonBody(createUserBody) },
  responses: {
    201: jsonResponse(userSchema, "The new user."),
    ...errorResponses(400, 401, 404, 409, 413, 415),
  },
});

const userIdParams = z.object({ user_id: uuidParam("user_id") });

const getUserRoute = createRoute({
  method: "get",
  path: "/admin/users/{user_id}",
  tags: ["Admin"],
  summary: "Retrieve a user",
  security: ADMIN_SECURITY,
  request: { params: userIdParams },
  responses: { 200: jsonResponse(userSchema, "The user."), ...errorResponses(400, 401, 404) },
});

const updateUserRoute = createRoute({
  method: "patch",
  path: "/admin/users/{user_id}",
  tags: ["Admin"],
  summary: "Update a user",
  security: ADMIN_SECURITY,
  request: { params: userIdParams, body: jsonBody(updateUserBody) },
  responses: { 200: jsonResponse(userSchema, "The updated user."), ...errorResponses(400, 401, 404, 413, 415) },
});

export const userRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const window = pageWindow(query);
    const list = await listUsers(c.var.db, c.var.principal.customerId, query, window);
    return c.json(
      { data: list.rows.map(toUser), meta: { ...pageMeta(window, list.total), status_counts: list.statusCounts } },
      200,
    );
  })
  .openapi(createUserRoute, async (c) => {
    const customer = await requireCustomer(c.var.db, c.req.valid("param").slug);
    const row = await createUser(c.var.db, customer.id, c.req.valid("json"), Date.now());
    if (row === "duplicate") throw new ApiError("conflict", "This account already has a user with this email");
    c.header("Location", `/admin/users/${row.id}`);
    return c.json(toUser(row), 201);
  })
  .openapi(getUserRoute, async (c) => {
    const row = await findUser(c.var.db, c.req.valid("param").user_id);
    if (!row) throw notFound("User");
    return c.json(toUser(row), 200);
  })
  .openapi(updateUserRoute, async (c) => {
    const row = await updateUser(c.var.db, c.req.valid("param").user_id, c.req.valid("json"), Date.now());
    if (!row) throw notFound("User");
    return c.json(toUser(row), 200);
  });
