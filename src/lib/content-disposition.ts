// Content-Disposition for downloads: an ASCII fallback for every client and the exact name per RFC 5987.

/** attachment with an ASCII fallback name and the exact name as RFC 5987 filename*. */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, "_").replace(/[\r\n]/g, "_") || "document";
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
