// Query parameters and meta object shared by list endpoints.
import { z } from "@hono/zod-openapi";
import type { PageWindow } from "../db/paging.ts";
import { calendarDateSchema, integerParam, singleLineText } from "./fields.ts";

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

/** A sort_order parameter, with its default. */
export function sortOrderQuery(fallback: "asc" | "desc") {
  return z
    .enum(["asc", "desc"])
    .default(fallback)
    .openapi({
      param: { name: "sort_order", in: "query" },
      description: `Sort direction; default ${fallback}.`,
    });
}

// The defaults are repeated for the document: the generator does not read a default through integerParam's transform.
export const pageQuery = {
  page: integerParam({ min: 1 })
    .default(1)
    .openapi({
      param: { name: "page", in: "query" },
      description: "Page number, from 1.",
      default: 1,
      example: 1,
    }),
  limit: integerParam({ min: 1, max: MAX_LIMIT })
    .default(DEFAULT_LIMIT)
    .openapi({
      param: { name: "limit", in: "query" },
      description: "Items per page, 1 to 100.",
      default: DEFAULT_LIMIT,
      example: 10,
    }),
  sort_order: sortOrderQuery("desc"),
};

/** A calendar date (YYYY-MM-DD, a UTC day) filtering a list, named `name`. */
export function dateQuery(name: string, description: string) {
  return calendarDateSchema.optional().openapi({ param: { name, in: "query" }, description });
}

export const searchQuery = singleLineText()
  .min(1)
  .max(50)
  .optional()
  .openapi({
    param: { name: "search", in: "query" },
    description: "Case-insensitive substring, 1-50 characters; % and _ are literal.",
  });

/** A sort_by parameter over the given keys, with its default. */
export function sortByQuery<const K extends readonly [string, ...string[]]>(keys: K, fallback: K[number]) {
  return z
    .enum(keys)
    .default(fallback as never)
    .openapi({
      param: { name: "sort_by", in: "query" },
      description: `Sort key; default ${fallback}.`,
    });
}

/**
 * Most items one comma-separated filter takes. Each item is one bound parameter, and a D1 statement takes at
 * most 100 of them, so the lists of one query must stay well under that together.
 */
const MAX_LIST_ITEMS = 20;

/**
 * A comma-separated filter: every item must satisfy `item` (an empty item is invalid), repeats are dropped,
 * and at most MAX_LIST_ITEMS distinct items are taken. Returns the distinct items in their first order.
 */
export function commaList<T extends z.ZodType>(item: T, name: string, description: string) {
  return z
    .string()
    .transform((value, ctx) => {
      const items: z.output<T>[] = [];
      for (const raw of value.split(",")) {
        const parsed = item.safeParse(raw.trim());
        if (!parsed.success) {
          ctx.addIssue({
            code: "custom",
            message: `has an invalid item "${raw}": ${parsed.error.issues[0]?.message}`,
          });
          return z.NEVER;
        }
        if (!items.includes(parsed.data)) items.push(parsed.data);
      }
      if (items.length > MAX_LIST_ITEMS) {
        ctx.addIssue({
          code: "custom",
          message: `must have at most ${MAX_LIST_ITEMS} distinct items`,
        });
        return z.NEVER;
      }
      return items;
    })
    .optional()
    .openapi({
      param: { name, in: "query" },
      description: `${description} Comma-separated, at most ${MAX_LIST_ITEMS} distinct items.`,
      type: "string",
    });
}

export function pageMeta(window: PageWindow, total: number) {
  const totalPages = Math.ceil(total / window.limit);
  return {
    total,
    page: window.page,
    limit: window.limit,
    totalPages,
    hasNextPage: window.page < totalPages,
    hasPreviousPage: window.page > 1,
  };
}

const pageMetaSchema = z.object({
  total: z.int().openapi({ description: "Items matching the query across all pages." }),
  page: z.int(),
  limit: z.int(),
  totalPages: z.int(),
  hasNextPage: z.boolean(),
  hasPreviousPage: z.boolean(),
});

/** meta.status_counts: how many items have each status, every status present. */
export function statusCountsSchema<S extends string>(statuses: readonly [S, ...S[]], name: string) {
  return z.object(Object.fromEntries(statuses.map((status) => [status, z.int()])) as Record<S, z.ZodInt>).openapi(name);
}

/** Admin lists: only a page. */
export const pageOnlyQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
});

/** `{data, meta}`: one page of a list. */
export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z.object({ data: z.array(item), meta: pageMetaSchema.openapi(`${name}PageMeta`) }).openapi(`${name}Page`);
}

/** `{data, meta}` with meta.status_counts: a page of a list whose items have a status. */
export function countedPageSchema<T extends z.ZodType, C extends z.ZodObject>(item: T, name: string, statusCounts: C) {
  const meta = pageMetaSchema.extend({ status_counts: statusCounts });
  return z.object({ data: z.array(item), meta: meta.openapi(`${name}PageMeta`) }).openapi(`${name}Page`);
}
