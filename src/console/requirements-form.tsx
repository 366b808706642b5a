// The console's form for a catalog pair's requirements (COMPLIANCE.md). The post is validated by the API's own schema
// (requirementsBody), so the form and PUT /admin/catalog/{cc}/{type}/requirements accept the same input.
import type { z } from "@hono/zod-openapi";
import { requirementWords } from "../compliance/evaluation.ts";
import { KYC_TYPE_WORDS } from "../compliance/types.ts";
import { DOCUMENT_TYPES, KYC_TYPES, type KycType, REQUIREMENT_FIELDS, type Requirements } from "../db/schema.ts";
import { capitalised } from "../lib/words.ts";
import { Table } from "../ui/components.tsx";
import { Checkboxes, TextInput } from "../ui/forms.tsx";

type Messages = Record<string, string>;

/** A document requirement as the form holds it: what was typed and ticked, not yet judged. */
interface DocumentRow {
  key: string;
  document_types: string[];
  applies_to: string[];
  description: string;
}

/** The form's values: a saved set, or a post being corrected. */
export interface RequirementsValues {
  verification_types: string[];
  address_in_country: boolean;
  fields: Record<KycType, string[]>;
  documents: DocumentRow[];
}

/** The form of no requirements yet: every verification type accepted, nothing else asked. */
const NONE: RequirementsValues = {
  verification_types: [...KYC_TYPES],
  address_in_country: false,
  fields: { individual: [], business: [] },
  documents: [],
};

export function requirementsValues(requirements: Requirements | null): RequirementsValues {
  return requirements ? { ...requirements, documents: requirements.documents.map((d) => ({ ...d })) } : NONE;
}

/** The form's names: the body's path joined by dots (`documents.0.key`), so a schema issue's path names its field. */
const documentField = (index: number, field: keyof DocumentRow | "remove") => `documents.${index}.${field}`;
const fieldsOf = (type: KycType) => `fields.${type}`;

const TYPE_OPTIONS = KYC_TYPES.map((type) => [type, KYC_TYPE_WORDS[type]] as const);
/** Labels of the fields a pair may require. */
const FIELD_OPTIONS = REQUIREMENT_FIELDS.map((field) => [field, requirementWords(`field:${field}`)] as const);
const DOCUMENT_TYPE_OPTIONS = DOCUMENT_TYPES.map((type) => [type, capitalised(type)] as const);

/** What a posted form gives: the body for the API's schema, and the values to show again. */
export interface PostedRequirements {
  body: Record<string, unknown>;
  values: RequirementsValues;
}

/**
 * The body a posted form states. A document group left empty (the one for adding) or ticked for removal is left out;
 * the others keep their order, so the schema's `documents.<n>` is the n-th group shown again.
 */
export function postedRequirements(fields: Record<string, string>, list: (name: string) => string[]): PostedRequirements {
  const indexes = new Set<number>();
  for (const name of Object.keys(fields)) {
    const index = /^documents\.(\d{1,3})\./.exec(name)?.[1];
    if (index !== undefined) indexes.add(Number(index));
  }
  const documents: DocumentRow[] = [];
  for (const index of [...indexes].sort((a, b) => a - b)) {
    if (fields[documentField(index, "remove")] !== undefined) continue;
    const row: DocumentRow = {
      key: (fields[documentField(index, "key")] ?? "").trim(),
      document_types: list(documentField(index, "document_types")),
      applies_to: list(documentField(index, "applies_to")),
      description: fields[documentField(index, "description")] ?? "",
    };
    const blank = !row.key && !row.description.trim() && row.document_types.length === 0 && row.applies_to.length === 0;
    if (!blank) documents.push(row);
  }
  const values: RequirementsValues = {
    verification_types: list("verification_types"),
    address_in_country: fields.address_in_country === "true",
    fields: { individual: list(fieldsOf("individual")), business: list(fieldsOf("business")) },
    documents,
  };
  return { body: values as unknown as Record<string, unknown>, values };
}

/** The schema's issues by the form's field names (`documents.0.key`); an issue of the whole set under "". */
export function requirementsErrors(issues: readonly z.core.$ZodIssue[]): Messages {
  const errors: Messages = {};
  for (const issue of issues) {
    const [first, second, third] = issue.path.map(String);
    const name =
      first === "documents" && second !== undefined && third !== undefined
        ? documentField(Number(second), third as keyof DocumentRow)
        : first === "fields" && second !== undefined
          ? fieldsOf(second as KycType)
          : (first ?? "");
    errors[name] ??= issue.message;
  }
  return errors;
}

/** One document requirement's group: its key, the types that meet it, whom it applies to, its words, and removal. */
function DocumentGroup({ index, row, errors, adding }: { index: number; row: DocumentRow; errors: Messages; adding: boolean }) {
  const title = adding ? "New document requirement" : `Document requirement ${index + 1}`;
  return (
    <fieldset class="group stack" aria-label={title}>
      <legend>{title}</legend>
      {adding ? <p class="hint muted">Fill it in to add a document; leave it empty to add none. Save to get another.</p> : null}
      <TextInput
        name={documentField(index, "key")}
        label="Key"
        value={row.key}
        error={errors[documentField(index, "key")]}
        hint="Names the requirement, unique in the set: lowercase letters, digits and _, e.g. proof_of_address"
      />
      <TextInput
        name={documentField(index, "description")}
        label="What the document must show"
        value={row.description}
        error={errors[documentField(index, "description")]}
        hint="In words for the customer, e.g. A utility bill under 3 months old"
      />
      <Checkboxes
        name={documentField(index, "document_types")}
        label="Documents that meet it"
        values={row.document_types}
        options={DOCUMENT_TYPE_OPTIONS}
        error={errors[documentField(index, "document_types")]}
      />
      <Checkboxes
        name={documentField(index, "applies_to")}
        label="Asked of"
        values={row.applies_to}
        options={TYPE_OPTIONS}
        error={errors[documentField(index, "applies_to")]}
      />
      {adding ? null : (
        <label class="check">
          <input type="checkbox" name={documentField(index, "remove")} value="true" />
          Remove this requirement
        </label>
      )}
    </fieldset>
  );
}

/** The requirements form's fields (the page wraps them in its form with the token and the save button). */
export function RequirementsFields({
  values,
  errors,
  countryCode,
}: {
  values: RequirementsValues;
  errors: Messages;
  countryCode: string;
}) {
  return (
    <>
      <Checkboxes
        name="verification_types"
        label="Verifications accepted"
        values={values.verification_types}
        options={TYPE_OPTIONS}
        error={errors.verification_types}
      />
      <label class="check">
        <input type="checkbox" name="address_in_country" value="true" checked={values.address_in_country} />
        The address must be in {countryCode}
      </label>
      {KYC_TYPES.map((type) => (
        <Checkboxes
          name={fieldsOf(type)}
          label={`Fields ${KYC_TYPE_WORDS[type].toLowerCase()} must fill, beyond the address`}
          values={values.fields[type]}
          options={FIELD_OPTIONS}
          error={errors[fieldsOf(type)]}
        />
      ))}
      <h2>Documents</h2>
      {errors.documents ? <p class="field-error">Documents {errors.documents}</p> : null}
      {values.documents.map((row, index) => (
        <DocumentGroup index={index} row={row} errors={errors} adding={false} />
      ))}
      <DocumentGroup
        index={values.documents.length}
        row={{ key: "", document_types: [], applies_to: [], description: "" }}
        errors={errors}
        adding={true}
      />
    </>
  );
}

/** The requirements as read-only text, for roles that may not change them. */
export function RequirementsFacts({ requirements, countryCode }: { requirements: Requirements; countryCode: string }) {
  const fieldWords = (type: KycType) =>
    requirements.fields[type].map((field) => requirementWords(`field:${field}`)).join(", ") || "none beyond the address";
  return (
    <>
      <dl class="facts card">
        <dt>Verifications accepted</dt>
        <dd>{requirements.verification_types.map((type) => KYC_TYPE_WORDS[type]).join(", ")}</dd>
        <dt>Address</dt>
        <dd>{requirements.address_in_country ? `Must be in ${countryCode}` : "Anywhere"}</dd>
        {KYC_TYPES.map((type) => (
          <>
            <dt>Fields of {KYC_TYPE_WORDS[type].toLowerCase()}</dt>
            <dd>{fieldWords(type)}</dd>
          </>
        ))}
      </dl>
      {requirements.documents.length === 0 ? (
        <p class="muted">No documents are asked for.</p>
      ) : (
        <Table
          label="Document requirements"
          rows={requirements.documents}
          columns={[
            { label: "Key", cell: (document) => <code>{document.key}</code> },
            { label: "What it must show", cell: (document) => <span class="wrap">{document.description}</span> },
            { label: "Documents", cell: (document) => document.document_types.map(capitalised).join(", ") },
            { label: "Asked of", cell: (document) => document.applies_to.map((type) => KYC_TYPE_WORDS[type]).join(", ") },
          ]}
        />
      )}
    </>
  );
}
