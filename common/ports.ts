/** Free loopback ports for components that cannot bind port 0 and report back. */
import { createServer } from 'node:net';

/** Asks the kernel for a free TCP port on 127.0.0.1 and releases it for the caller to bind. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
