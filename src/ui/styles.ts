// The pages' stylesheet and icon, served by the Worker (no CDN); works from 375 px up.
export const UI_CSS = `
:root { --ink: #1b1f24; --muted: #5b6570; --line: #d9dee3; --bg: #f6f7f9; --card: #fff; --accent: #2451b3;
  --ok: #1f7a3d; --warn: #8a5a00; --bad: #b3261e; --info: #2451b3; font-family: system-ui, -apple-system, "Segoe UI",
  Roboto, sans-serif; color: var(--ink); background: var(--bg); }
* { box-sizing: border-box; }
body { margin: 0; line-height: 1.45; }
a { color: var(--accent); }
header.top { background: var(--ink); color: #fff; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem;
  padding: .6rem 1rem; }
header.top .brand { font-weight: 700; color: #fff; text-decoration: none; }
header.top nav { display: flex; flex-wrap: wrap; gap: .25rem; flex: 1; }
header.top nav a { color: #d6dbe1; text-decoration: none; padding: .3rem .6rem; border-radius: 6px; }
header.top nav a[aria-current="page"] { background: #39424d; color: #fff; }
header.top .who { display: flex; align-items: center; gap: .5rem; font-size: .9rem; color: #d6dbe1; }
header.top .who button { background: none; border: 1px solid #6b7580; color: #fff; }
/* Under the top bar of a local deployment (src/portal/frame.tsx). */
.local-mode { margin: 0; padding: .45rem 1rem; background: #fff3d6; color: #5c3d00; border-bottom: 1px solid #f0d9a0;
  font-size: .9rem; overflow-wrap: anywhere; }
main { max-width: 72rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
/* A long URL, e-mail or file name breaks where it must rather than widen the page. */
h1, h2, p, dd, li, .notice { overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .75rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin-bottom: 1rem; }
.card > h2:first-child, .card > h1:first-child { margin-top: 0; }
.narrow { max-width: 26rem; margin: 3rem auto; }
form.stack { display: grid; gap: .9rem; }
form.inline { display: inline; }
.field { display: grid; gap: .25rem; align-content: start; }
label { font-weight: 600; font-size: .92rem; }
label.check { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
input, select, textarea { font: inherit; font-weight: 400; padding: .5rem .6rem; border: 1px solid #aeb6bf; border-radius: 6px;
  background: #fff; width: 100%; }
input:focus, select:focus, textarea:focus, button:focus, a:focus { outline: 3px solid #8fb0f0; outline-offset: 1px; }
button, .button { font: inherit; cursor: pointer; border-radius: 6px; padding: .5rem .9rem; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
.field-error { color: var(--bad); font-weight: 500; font-size: .88rem; margin: 0; }
[aria-invalid="true"] { border-color: var(--bad); }
.notice { padding: .75rem 1rem; border-radius: 8px; margin-bottom: 1rem; border: 1px solid; }
.notice.error { background: #fdecea; border-color: #f3b8b3; color: #7a1c16; }
.notice.success { background: #e8f5ec; border-color: #a9d8b8; color: #14532d; }
.notice.warning { background: #fff7e0; border-color: #ecd08a; color: #5c4100; }
.notice h3 { margin-top: 0; }
.secret { font-family: ui-monospace, monospace; word-break: break-all; background: #f1f3f5; padding: .5rem; border-radius: 6px; }
/* Positioned, so nothing absolutely placed inside (a visually hidden label) can reach past it and widen the page. */
.table-wrap { position: relative; overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 10px; }
table { border-collapse: collapse; width: 100%; font-size: .93rem; }
th, td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
/* A table fits its page, at any width: a cell wraps at spaces, keeping its words whole, so a column is never narrower
   than its longest word or its header's; a cell with a long word (a file name, an e-mail, a URL: components.tsx) breaks
   anywhere in it. */
td { overflow-wrap: break-word; }
td.long { overflow-wrap: anywhere; }
.badge, td button, td .button, time { white-space: nowrap; }
th { background: #eef1f4; font-weight: 600; }
tr:last-child td { border-bottom: 0; }
.badge { display: inline-block; padding: .1rem .55rem; border-radius: 999px; font-size: .8rem; font-weight: 600;
  background: #e6e9ed; color: #39424d; }
.badge.pending, .badge.uploaded, .badge.pending_review, .badge.under_review { background: #fff3d6; color: var(--warn); }
.badge.processing, .badge.enabled { background: #dfe8fb; color: var(--info); }
.badge.fulfilled, .badge.approved, .badge.verified, .badge.active, .badge.succeeded { background: #dcf1e3; color: var(--ok); }
.badge.cancelled, .badge.rejected, .badge.failed, .badge.locked, .badge.disabled, .badge.inactive { background: #fbe0de; color: var(--bad); }
.tabs { display: flex; flex-wrap: wrap; gap: .25rem; margin: 0 0 1rem; padding: 0; list-style: none; }
.tabs a { display: inline-block; padding: .35rem .75rem; border-radius: 999px; text-decoration: none; border: 1px solid var(--line);
  background: #fff; }
.tabs a[aria-current="page"] { background: var(--accent); border-color: var(--accent); color: #fff; }
.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-start; margin-bottom: 1rem; }
.filters .field { flex: 1 1 10rem; min-width: 10rem; }
.filters .field input { min-width: 0; }
/* A choice of several values: its legend is the field's label, its summary reads like a select, its options fold. */
fieldset.multi { border: 0; margin: 0; padding: 0; min-width: 0; }
fieldset.multi legend { font-weight: 600; font-size: .92rem; padding: 0; margin-bottom: .25rem; }
details.choices > summary { cursor: pointer; padding: .5rem .6rem; border: 1px solid #aeb6bf; border-radius: 6px; background: #fff;
  overflow-wrap: anywhere; }
details.choices .options { display: grid; gap: .3rem; max-height: 14rem; overflow-y: auto; padding: .5rem .25rem; }
details.choices .options input { width: auto; }
/* Filters fold behind one control on small screens; on wider ones (where the browser can say so) they are always open. */
details.fold { margin-bottom: 1rem; }
details.fold > summary { cursor: pointer; font-weight: 600; padding: .5rem .9rem; border: 1px solid var(--line); border-radius: 6px;
  background: #fff; display: inline-block; margin-bottom: .5rem; }
@supports selector(::details-content) {
  @media (min-width: 601px) {
    details.fold > summary { display: none; }
    details.fold::details-content { content-visibility: visible; display: block; }
  }
}
.pager { display: flex; gap: .75rem; align-items: center; margin-top: .75rem; }
.empty { text-align: center; padding: 2rem 1rem; color: var(--muted); }
.muted { color: var(--muted); }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
@media (max-width: 600px) {
  main { padding: 1rem .75rem 2rem; }
  header.top .who .person { display: none; }
  /* Tables become cards: a row a card, each cell under its column's label. */
  .table-wrap { overflow: visible; background: none; border: 0; }
  .table-wrap table, .table-wrap tbody, .table-wrap tr, .table-wrap td { display: block; width: 100%; }
  .table-wrap thead { position: absolute; left: 0; top: 0; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  .table-wrap tr { background: var(--card); border: 1px solid var(--line); border-radius: 10px; margin-bottom: .75rem;
    padding: .35rem .75rem; }
  .table-wrap td { display: grid; grid-template-columns: 7.5rem minmax(0, 1fr); gap: .5rem; border: 0; padding: .3rem 0; }
  .table-wrap td::before { content: attr(data-label); color: var(--muted); font-weight: 600; }
  /* The brand and sign-out on the first row, the sections on a full-width row under them. */
  header.top .who { margin-left: auto; }
  header.top nav { order: 1; flex-basis: 100%; margin: 0 -.6rem; }
}
/* Settings pages (API keys, Team, Webhooks) */
.visually-hidden { position: absolute; left: 0; top: 0; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; }
td .actions select { width: auto; }
.badge.revoked { background: #fbe0de; color: var(--bad); }
.badge.invited { background: #dfe8fb; color: var(--info); }
fieldset.checks { border: 1px solid var(--line); border-radius: 8px; display: grid; gap: .35rem; }
fieldset.checks input, label.check input { width: auto; }
fieldset.checks legend { font-weight: 600; font-size: .92rem; }
fieldset.checks.group { border: 0; padding: 0; margin: .25rem 0 0; }
.check-row { display: flex; flex-wrap: wrap; gap: 0 .5rem; align-items: baseline; }
fieldset.checks.group legend { font-size: .88rem; color: var(--muted); }
fieldset:disabled { opacity: .55; }
ul.choices { list-style: none; padding: 0; display: grid; gap: .5rem; }
ul.choices button { width: 100%; text-align: left; }
header.top .who .slug { color: #aeb6bf; }
main section.work { margin-bottom: 1.5rem; }
/* The console's review: the open document beside the details (stacked below 900 px), the decision after them. */
.evidence { display: grid; gap: 0 1.5rem; }
@media (min-width: 900px) { .evidence { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); } }
ul.documents { list-style: none; margin: 0 0 .75rem; padding: 0; display: grid; gap: .35rem; }
ul.documents li { overflow-wrap: anywhere; padding: .35rem .6rem; border: 1px solid var(--line); border-radius: 8px;
  background: var(--card); }
ul.documents li.open { border-color: var(--accent); background: #eef4ff; }
figure.document-open { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: .75rem;
  display: grid; gap: .75rem; }
figure.document-open img { display: block; width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
.document-link { padding: 2rem 1rem; text-align: center; background: #f1f3f5; border-radius: 8px; }
/* The requirements form: a group per document requirement. */
fieldset.group { border: 1px solid var(--line); border-radius: 8px; padding: .75rem; }
fieldset.group legend { font-weight: 600; }
/* The console's home: the queues' counts. */
.glance { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); }
.glance .card { margin: 0; }
.glance .count { font-size: 1.6rem; font-weight: 700; }
/* Work pages (orders, numbers, verifications): a heading with its action, hints under inputs, the filter form's
   buttons on the inputs' baseline. */
.page-head { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .5rem; }
.page-head h1 { margin-bottom: .5rem; }
.hint { font-weight: 400; font-size: .85rem; margin: 0; }
/* The buttons level with the inputs, under the labels' line. */
.filters .actions { margin-top: 1.65rem; }
/* Verifications and profiles: an evaluation's checklist, a reviewer's reasons beside what they name, reports. */
.badge.met { background: #dcf1e3; color: var(--ok); }
.badge.unmet { background: #fbe0de; color: var(--bad); }
.badge.not_applicable { background: #e6e9ed; color: var(--muted); }
ul.checklist { list-style: none; margin: 0; padding: 0; display: grid; gap: .5rem; }
ul.checklist > li { overflow-wrap: anywhere; }
ul.checklist > li > ul { margin: .25rem 0 0; padding-left: 1.25rem; }
ul.checklist > li.unmet > ul { color: #7a1c16; }
ul.reasons { margin: .25rem 0 0; padding-left: 1.1rem; color: #7a1c16; white-space: normal; overflow-wrap: anywhere; }
.field-error ul { margin: .15rem 0 0; padding-left: 1.1rem; }
.card-actions { margin-top: .9rem; }
.selection { margin-top: .75rem; }
.card.selection { display: grid; gap: .6rem; }
.card.selection h2 { margin: 0; }
ul.ids { margin: .25rem 0 .5rem; padding-left: 1.1rem; font-size: .88rem; overflow-wrap: anywhere; }
/* A report's numbers: in columns on a wide screen, one a line on a phone. */
ul.numbers { margin: .25rem 0 .75rem; padding-left: 1.1rem; columns: 11rem; overflow-wrap: anywhere; }
.report h3 { font-size: 1rem; margin: .75rem 0 .5rem; }
code { overflow-wrap: anywhere; }
/* An audit event's changes, one a line. */
ul.changes { margin: 0; padding: 0; list-style: none; display: grid; gap: .15rem; }
tr.chosen td { background: #eef4ff; }
`;

/** The pages' icon: a handset on the brand's ink, as SVG. */
export const UI_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1b1f24"/><path fill="#fff" d="M11.6 7.5c.6-.2 1.3 0 1.6.6l1.6 3.3c.3.6.1 1.3-.4 1.7l-1.5 1.1c.9 2 2.5 3.6 4.5 4.5l1.1-1.5c.4-.5 1.1-.7 1.7-.4l3.3 1.6c.6.3.9 1 .6 1.6l-.7 2.1c-.3.9-1.1 1.4-2 1.4C13.9 23.5 8.5 18.1 8.5 10.6c0-.9.5-1.7 1.4-2z"/></svg>`;
