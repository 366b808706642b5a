// The evidence on a review page: the verification, its evaluation and its documents.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { findCatalogPair, listOrderablePairs } from "../catalog/store.ts";
import { evaluate } from "../compliance/evaluation.ts";
import type { DocumentRow, KycRow, Requirements } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { findQueuedVerification, type QueuedVerification } from "../kyc/queue.ts";
import type { SubjectKind } from "../kyc/store.ts";
import { downloadDocumentAction } from "../kyc/use-cases.ts";
import { EvaluationChecklist, ProfileEvaluation, ReasonList, reasonsOfDocument } from "../kyc/views.tsx";
import { withPrefix } from "../lib/ids.ts";
import { capitalised } from "../lib/words.ts";
import { Badge } from "../ui/components.tsx";
import { dateTime, withQuery } from "../ui/format.ts";
import { hrefOf } from "./review-pages.tsx";
import { rolesThatMay } from "./role-words.ts";

export const documentIdParam = prefixedIdParam("doc", "document_id");

/** A document's bytes, for compliance and admin. */
const documentHref = (document: DocumentRow) => `/ops/documents/${withPrefix("doc", document.id)}`;

/** What a review page shows: the verification, its documents, its account and what it verifies. */
export interface Reviewed {
  kind: SubjectKind;
  kyc: KycRow;
  documents: DocumentRow[];
  customerSlug: string;
  /** The number verified; null for a profile. */
  number: QueuedVerification["number"];
  /** A profile's attached numbers (none for a number's own verification). */
  numberCount: number;
}

/** The verification or profile of the page, in one read: undefined when the id names the other kind. */
export async function findReviewed(c: Context<ConsoleEnv>, kind: SubjectKind, id: string): Promise<Reviewed | undefined> {
  const found = await findQueuedVerification(c.var.db, id);
  if (!found || (kind === "number") !== (found.number !== null)) return undefined;
  const { verification, documents, customerSlug, number, numberCount } = found;
  return { kind, kyc: verification, documents, customerSlug, number, numberCount };
}

/** The evaluation: a number against its own pair; a profile against a pair of the catalog, chosen on the page. */
export async function evaluationPart(c: Context<ConsoleEnv>, reviewed: Reviewed): Promise<Child> {
  const { db } = c.var;
  const subject = { verification: reviewed.kyc, documents: reviewed.documents };
  if (reviewed.number) {
    const pair = { countryCode: reviewed.number.countryCode, numberType: reviewed.number.numberType };
    const row = await findCatalogPair(db, pair);
    // A pair no longer orderable has no requirements.
    const requirements: Requirements | null = row?.requirements ?? null;
    return <EvaluationChecklist evaluation={evaluate(pair, requirements, subject, c.var.now)} requirements={requirements} />;
  }
  return (
    <ProfileEvaluation
      action={hrefOf("profile", reviewed.kyc.id)}
      catalog={await listOrderablePairs(db)}
      asked={c.req.query("pair")}
      profile={subject}
      now={c.var.now}
    />
  );
}

/** The page with one of its documents open (its other query kept: the profile's pair). */
function openHref(c: Context<ConsoleEnv>, reviewed: Reviewed, document: DocumentRow): string {
  const query = withQuery(c.req.query(), { document: withPrefix("doc", document.id), done: undefined });
  return `${hrefOf(reviewed.kind, reviewed.kyc.id)}${query}`;
}

/** The documents as links, each opening it beside the details (the open one marked), with the reasons about each. */
function DocumentChoices({ c, reviewed, open }: { c: Context<ConsoleEnv>; reviewed: Reviewed; open: DocumentRow | undefined }) {
  return (
    <ul class="documents" aria-label="Documents">
      {reviewed.documents.map((document) => (
        <li class={document === open ? "open" : undefined}>
          <a
            href={openHref(c, reviewed, document)}
            aria-current={document === open ? "true" : undefined}
            aria-label={`Open ${document.filename} beside the details`}
          >
            {document.filename}
          </a>{" "}
          <Badge status={document.status} />
          <span class="muted"> {capitalised(document.documentType)}</span>
          <ReasonList reasons={reasonsOfDocument(reviewed.kyc, document)} label={`Reasons about ${document.filename}`} />
        </li>
      ))}
    </ul>
  );
}

/**
 * The open document, large: an image inline at the pane's width, a PDF as a link that opens it (nothing renders a
 * PDF's page here); with its type, status, description and expiry.
 */
function OpenDocument({ document }: { document: DocumentRow }) {
  const href = documentHref(document);
  return (
    <figure class="document-open">
      {document.mimeType.startsWith("image/") ? (
        <a href={href} target="_blank" rel="noopener noreferrer" aria-label={`Open ${document.filename} in a new tab`}>
          <img src={href} alt={document.filename} />
        </a>
      ) : (
        <div class="document-link">
          <p>{document.filename} is a PDF: the browser shows it in a tab of its own.</p>
          <a
            class="button"
            href={href}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Open ${document.filename} in a new tab`}
          >
            Open the PDF in a new tab
          </a>
        </div>
      )}
      <figcaption>
        <dl class="facts">
          <dt>File</dt>
          <dd>{document.filename}</dd>
          <dt>Type</dt>
          <dd>{capitalised(document.documentType)}</dd>
          <dt>Status</dt>
          <dd>
            <Badge status={document.status} />
          </dd>
          <dt>Description</dt>
          <dd>{document.description ?? "—"}</dd>
          <dt>Expires</dt>
          <dd>{document.expirationDate ?? "—"}</dd>
          <dt>Uploaded</dt>
          <dd>{dateTime(document.uploadedAt)}</dd>
        </dl>
      </figcaption>
    </figure>
  );
}

/**
 * The evidence's pane: the documents to choose from and the one chosen by the address's `document`, large. A document
 * opens only when asked for: an image shown is a read of its bytes, audited (kyc.document_viewed) and seen by the
 * customer, so a page that opened one by itself would record a view at every load, a review's redirects included.
 */
export function DocumentPane({
  c,
  reviewed,
  mayRead,
  asked,
}: {
  c: Context<ConsoleEnv>;
  reviewed: Reviewed;
  mayRead: boolean;
  asked: string | undefined;
}) {
  const { documents } = reviewed;
  if (documents.length === 0) return <p class="muted">No documents: nothing here proves the details.</p>;
  const id = asked === undefined ? undefined : documentIdParam.safeParse(asked);
  const open = id?.success ? documents.find((document) => document.id === id.data) : undefined;
  return (
    <>
      <DocumentChoices c={c} reviewed={reviewed} open={mayRead ? open : undefined} />
      {!mayRead ? (
        <p class="muted">Documents' files are for {rolesThatMay(downloadDocumentAction)} to open.</p>
      ) : open ? (
        <OpenDocument document={open} />
      ) : (
        <p class="muted">
          {asked === undefined
            ? "Open a document to see it beside the details; each opening is recorded in the audit log, which the customer sees."
            : "This verification has no such document: open one of the above."}
        </p>
      )}
    </>
  );
}
