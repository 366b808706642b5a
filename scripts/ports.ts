// The local ports the scripts and the tests ask about: whether one is taken, and a free one.
import { createServer } from "node:net";

/** Whether something listens on the port already (on any address), so that `wrangler dev` could not. */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" || error.code === "EACCES" ? resolve(true) : reject(error),
    );
    // No host: the unspecified address of both families, which a listener on any local address blocks.
    server.listen(port, () => server.close(() => resolve(false)));
  });
}

/** A port that nothing listens on now, as the system picks one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
