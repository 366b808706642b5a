// The Content-Disposition of a download: safe for every client, exact for those that read RFC 5987.

/** attachment with an ASCII fallback name and the exact name as RFC 5987 filename*. */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, "_").replace(/[\r\n]/g, "_") || "document";
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
