// Customer API routes for reservations.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import {
  createReservationBody,
  extendReservationBody,
  listReservationsQuery,
  reservationIdParam,
  reservationPageSchema,
  reservationSchema,
  toReservation,
  toReservationRequest,
} from "./schemas.ts";
import { findReservation, listReservations, type ReservationWithNumbers } from "./store.ts";
import { cancelReservationAction, extendReservationAction, reserveNumbers } from "./use-cases.ts";

const slugParams = z.object({ customer_slug: customerSlugParam });
const reservationParams = z.object({ customer_slug: customerSlugParam, reservation_id: reservationIdParam });
const operation = { tags: ["Reservations"], security: API_KEY_SECURITY };

function answer({ reservation, phoneNumbers }: ReservationWithNumbers, now: number) {
  return toReservation(reservation, phoneNumbers, now);
}

export const reservationRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "listReservations",
      method: "get",
      path: "/customers/{customer_slug}/reservations",
      summary: "List reservations",
      description: "A page of the account's reservations, newest first. An active reservation past expires_at is expired.",
      request: { params: slugParams, query: listReservationsQuery },
      responses: { 200: jsonResponse(reservationPageSchema, "A page of reservations.") },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const window = pageWindow(query.page, query.limit);
      const list = await listReservations(c.var.db, c.var.principal.customerId, query.status, window, c.var.now);
      return c.json({ data: list.rows.map((row) => answer(row, c.var.now)), meta: pageMeta(window, list.total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getReservation",
      method: "get",
      path: "/customers/{customer_slug}/reservations/{reservation_id}",
      summary: "Retrieve a reservation",
      request: { params: reservationParams },
      responses: { 200: jsonResponse(reservationSchema, "The reservation."), ...errorResponses(["not_found"]) },
    }),
    async (c) => {
      const found = await findReservation(c.var.db, c.var.principal.customerId, c.req.valid("param").reservation_id);
      if (!found) throw notFound("Reservation");
      return c.json(answer(found, c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "createReservation",
      method: "post",
      path: "/customers/{customer_slug}/reservations",
      summary: "Reserve numbers",
      description:
        "Holds numbers in stock for the account, all or nothing: named ones (all of one pair), or the first available " +
        "ones of a pair in phone-number order. They are held for ttl_minutes, or through a profile's review.",
      request: { params: slugParams, body: jsonBody(createReservationBody) },
      responses: {
        201: { ...jsonResponse(reservationSchema, "The reservation, active."), headers: locationHeader },
        ...errorResponses(reserveNumbers.refusals),
      },
    }),
    async (c) => {
      const request = toReservationRequest(c.req.valid("json"));
      const created = valueOrProblem(await reserveNumbers.run(workOf(c), c.var.principal.customerId, request));
      const body = answer(created, c.var.now);
      c.header("Location", `/api/customers/${c.req.valid("param").customer_slug}/reservations/${body.id}`);
      return c.json(body, 201);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "extendReservation",
      method: "post",
      path: "/customers/{customer_slug}/reservations/{reservation_id}/extend",
      summary: "Extend a reservation",
      description:
        "Holds an active reservation's numbers for ttl_minutes from now, at most until 24 hours after its creation. " +
        "A reservation held through a profile's review is not extended.",
      request: { params: reservationParams, body: jsonBody(extendReservationBody) },
      responses: {
        200: jsonResponse(reservationSchema, "The reservation, extended."),
        ...errorResponses(extendReservationAction.refusals),
      },
    }),
    async (c) => {
      const { reservation_id } = c.req.valid("param");
      const { ttl_minutes } = c.req.valid("json");
      const extended = valueOrProblem(
        await extendReservationAction.run(workOf(c), c.var.principal.customerId, reservation_id, ttl_minutes),
      );
      return c.json(answer(extended, c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "cancelReservation",
      method: "delete",
      path: "/customers/{customer_slug}/reservations/{reservation_id}",
      summary: "Cancel a reservation",
      description: "Cancels an active reservation: its numbers are available again; emits reservation.cancelled.",
      request: { params: reservationParams },
      responses: {
        200: jsonResponse(reservationSchema, "The reservation, cancelled."),
        ...errorResponses(cancelReservationAction.refusals),
      },
    }),
    async (c) => {
      const cancelled = valueOrProblem(
        await cancelReservationAction.run(workOf(c), c.var.principal.customerId, c.req.valid("param").reservation_id),
      );
      return c.json(answer(cancelled, c.var.now), 200);
    },
  );
