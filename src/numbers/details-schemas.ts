// Wire format of a number's details: its PATCH and the bulk change of tags.
import { z } from "@hono/zod-openapi";
import { prefixedId } from "../http/fields.ts";
import { customerReferenceSchema, MAX_TAGS, tagKey, tagListSchema, tagSchema } from "./schemas.ts";
import { TAG_OUTCOMES } from "./tags-store.ts";

/** The most numbers one bulk change of tags names. */
const MAX_TAGGED = 1000;

export const updateNumberBody = z
  .strictObject({
    tags: tagListSchema.optional().openapi({ description: "Replaces the number's tags." }),
    customer_reference: customerReferenceSchema.nullable().optional().openapi({ description: "null clears it." }),
    release_protected: z.boolean().optional().openapi({ description: "A protected number is never released by the customer." }),
  })
  .refine((body) => Object.keys(body).length > 0, { error: "must contain at least one field to change" })
  .openapi("UpdateNumber");

/** A list of tags to add or remove: each valid, none repeated ignoring case. */
const tagChangeList = (description: string) =>
  z
    .array(tagSchema)
    .min(1)
    .max(MAX_TAGS)
    .refine((tags) => new Set(tags.map(tagKey)).size === tags.length, { error: "must not repeat a tag (ignoring case)" })
    .optional()
    .openapi({ description });

export const tagNumbersBody = z
  .strictObject({
    number_ids: z
      .array(prefixedId("num"))
      .min(1)
      .max(MAX_TAGGED)
      .openapi({ description: `1 to ${MAX_TAGGED.toLocaleString("en-US")} ids, num_<uuid> or bare; a repeated id counts once.` }),
    add: tagChangeList("Tags to add (one already there, in any case, changes nothing); appended in this order."),
    remove: tagChangeList("Tags to take away, whatever their case."),
  })
  .superRefine((body, ctx) => {
    if (body.add === undefined && body.remove === undefined) {
      ctx.addIssue({ code: "custom", path: [], message: "must have add or remove" });
      return;
    }
    const removed = new Set((body.remove ?? []).map(tagKey));
    const both = (body.add ?? []).find((tag) => removed.has(tagKey(tag)));
    if (both !== undefined) {
      ctx.addIssue({ code: "custom", path: ["add"], message: `must not name "${both}", which remove names too` });
    }
  })
  .openapi("TagNumbers");

export const tagReportSchema = z
  .object({
    updated: z.int().openapi({ description: "How many numbers this request changed." }),
    results: z
      .array(
        z.object({
          number_id: z.string().openapi({ example: "num_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e" }),
          phone_number: z.string().nullable().openapi({ description: "null for not_found." }),
          outcome: z.enum(TAG_OUTCOMES).openapi({
            description:
              "updated; unchanged (its tags were already as asked); not_found; number_released; too_many_tags (it " +
              "would have more than 20).",
          }),
        }),
      )
      .openapi({ description: "One entry per distinct number, in request order." }),
  })
  .openapi("TagReport");
