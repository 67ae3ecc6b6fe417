/** Builds tar.gz code archives for deploy tests, with tar-stream and zlib like a real client would. */
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** A file of an archive: its text, or its text and mode. */
export type ArchiveFile = string | { content: string | Buffer; mode?: number };

/** A gzip-compressed tar of `files` (path -> content). */
export async function makeArchive(files: Record<string, ArchiveFile>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const [name, file] of Object.entries(files)) {
    const { content, mode } = typeof file === 'string' ? { content: file, mode: 0o644 } : file;
    await new Promise<void>((resolve, reject) =>
      tar.entry({ name, mode: mode ?? 0o644 }, content, (err) => (err ? reject(err) : resolve())),
    );
  }
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** A minimal Python ASGI service. */
export const PYTHON_SERVICE = `async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"hello"})
`;

/** A minimal Node service. */
export const NODE_SERVICE = `const http = require('node:http');
const app = (req, res) => res.end('hello');
module.exports = { app };
`;
