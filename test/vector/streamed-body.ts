/**
 * Upsert bodies sent in pieces, each piece once the gateway has taken in the ones before it
 * (the vector plane's `upsert.onBodyRead` says so), never after a pause: for tests in which the
 * gateway must hold part of a body (full batches, a schema verdict) before it reads the rest.
 */
import { waitFor } from '../harness/wait.js';
import { rawRequest, type ErrorBody } from './vector-server.js';

/** What a vector plane reports of the upsert bodies it reads, and bodies sent by it. */
export class BodyReads {
  /** Bytes of the body being read, by collection name. */
  private readonly read = new Map<string, number>();
  private readonly listeners = new Set<() => void>();

  /** The hook to start the vector plane with: `startVectorServer({ upsert: { onBodyRead } })`. */
  readonly onBodyRead = (bytes: number, collection: string): void => {
    this.read.set(collection, bytes);
    for (const listener of this.listeners) listener();
  };

  /**
   * Upserts (`?wait=true`) into `collection` of the plane at `base` the body made of `pieces`,
   * writing each once the gateway has read every byte before it, or has answered; resolves with
   * the status and the parsed answer. Rejects, naming the bytes, if the gateway does not read
   * a piece within 10 s. One body at a time per collection.
   */
  send<T = ErrorBody>(
    base: string,
    key: string,
    collection: string,
    pieces: string[],
  ): Promise<{ status: number; body: T }> {
    this.read.delete(collection);
    return rawRequest<T>(
      base,
      'PUT',
      `/api/v1/collections/${collection}/points?wait=true`,
      { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      (req) => {
        let answered = false;
        req.once('response', () => (answered = true));
        let sent = 0;
        void (async () => {
          for (const [i, piece] of pieces.entries()) {
            if (req.destroyed) return;
            req.write(piece);
            sent += Buffer.byteLength(piece);
            if (i === pieces.length - 1) break;
            await waitFor(
              `the gateway to read the first ${sent} bytes of an upsert body into ${collection}`,
              () => answered || req.destroyed || (this.read.get(collection) ?? 0) >= sent,
              {
                timeoutMs: 10_000,
                wakeOn: (changed) => {
                  this.listeners.add(changed);
                  req.on('response', changed);
                  return () => {
                    this.listeners.delete(changed);
                    req.off('response', changed);
                  };
                },
                lastSeen: () => this.read.get(collection) ?? 0,
              },
            );
          }
          req.end();
        })().catch((err: Error) => req.destroy(err));
      },
    );
  }
}
