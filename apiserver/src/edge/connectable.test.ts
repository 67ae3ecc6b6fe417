import { describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { freePort } from '../../../common/ports.js';
import { awaitConnectable } from './connectable.js';

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
}

describe('awaitConnectable', () => {
  it('waits through refusals until the agent listens', async () => {
    const port = await freePort();
    const server = createServer((socket) => socket.destroy());
    let accepted = 0;
    server.on('connection', () => accepted++);
    // Refused at first; the listener comes after a few attempts.
    const waiting = awaitConnectable({ host: '127.0.0.1', port }, Date.now() + 5_000, 10);
    await new Promise((r) => setTimeout(r, 100));
    await listen(server, port);
    try {
      await expect(waiting).resolves.toBe(true);
      expect(accepted).toBe(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('gives up at the deadline when nothing ever listens', async () => {
    const port = await freePort();
    const started = Date.now();
    await expect(awaitConnectable({ host: '127.0.0.1', port }, started + 150, 10)).resolves.toBe(
      false,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('answers true at once for a listening agent', async () => {
    const server = createServer((socket) => socket.destroy());
    const port = await freePort();
    await listen(server, port);
    try {
      await expect(awaitConnectable({ host: '127.0.0.1', port }, Date.now() + 1_000)).resolves.toBe(
        true,
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
