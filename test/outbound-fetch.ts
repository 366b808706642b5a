// Setup file: the default outbound fetch of every test file, so no test (nor the queue consumer running in the
// background after a test enqueued a delivery) reaches the network. Hosts under .test are receivers that answer 204 and
// are recorded here; any other URL fails loudly. A test that needs other answers stubs fetch itself (vi.stubGlobal),
// and vi.unstubAllGlobals() brings this one back.

/** A request one of the .test receivers got. */
export interface ReceivedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** What the .test receivers got, in order, in this test file. */
export const receivedRequests: ReceivedRequest[] = [];

globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  if (!new URL(request.url).hostname.endsWith(".test")) throw new Error(`unexpected outbound fetch to ${request.url}`);
  const headers = Object.fromEntries(request.headers);
  receivedRequests.push({ url: request.url, method: request.method, headers, body: await request.text() });
  return new Response(null, { status: 204 });
};
