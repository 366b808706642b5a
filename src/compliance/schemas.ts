// Wire format of an evaluation (COMPLIANCE.md), shared by numbers and profiles.
import { z } from "@hono/zod-openapi";
import { REQUIREMENT_FIELDS } from "../db/schema.ts";
import { EVALUATION_CODES, REQUIREMENT_STATUSES } from "./types.ts";

const evaluationReasonSchema = z
  .object({
    code: z.enum(EVALUATION_CODES),
    detail: z.string().openapi({ description: "What to do, in words.", example: "Add the company name" }),
    field: z.enum(REQUIREMENT_FIELDS).optional(),
    document_id: z.string().optional().openapi({ example: "doc_5c0e1f9e-8f3a-4d0b-9d7e-2a6b1c3d4e5f" }),
  })
  .openapi("EvaluationReason");

export const evaluationSchema = z
  .object({
    country_code: z.string().openapi({ example: "DE" }),
    number_type: z.string().openapi({ example: "local" }),
    kyc_required: z.boolean(),
    compliant: z.boolean().openapi({ description: "True when no requirement is unmet." }),
    results: z.array(
      z.object({
        requirement: z.string().openapi({
          description: "verification_type, address, field:<name> or document:<key>.",
          example: "document:proof_of_address",
        }),
        status: z.enum(REQUIREMENT_STATUSES),
        reasons: z.array(evaluationReasonSchema).openapi({ description: "At least one when unmet; none otherwise." }),
      }),
    ),
  })
  .openapi("Evaluation");
