/**
 * A GET of an agent's URL through an edge, the way a browser reaches it through a wildcard DNS
 * name: to the edge's address, with the agent's host in `Host` (which fetch cannot set).
 */
import { request } from 'node:http';

/** GETs `url`'s path at the edge `edgeHost`:`edgePort` with `url`'s host; status and body text. */
export function getThroughEdge(
  url: string,
  edgeHost: string,
  edgePort: number,
): Promise<{ status: number; text: string }> {
  const { host, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: edgeHost, port: edgePort, method: 'GET', path: pathname, headers: { host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
