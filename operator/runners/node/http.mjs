// @ts-check
/**
 * The HTTP server in front of a Node app: `/health` belongs to the platform (the contract says a
 * `/health` route in user code is never reached, so readiness means "the process serves"),
 * everything else goes to the app, whatever its shape. Fetch-style apps get a WHATWG Request
 * whose body streams from the socket and have their Response streamed back.
 */
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inspect } from 'node:util';

/** @typedef {import('node:http').IncomingMessage} IncomingMessage */
/** @typedef {import('node:http').ServerResponse} ServerResponse */
/** @typedef {import('node:http').Server} Server */
/** @typedef {import('./load.mjs').RequestListener} RequestListener */
/** @typedef {import('./load.mjs').UpgradeListener} UpgradeListener */
/** @typedef {import('./load.mjs').FetchApp} FetchApp */

const HEALTH_PATH = '/health';
const HEALTH_BODY = '{"status":"ok"}';

/** @param {string | undefined} url */
function isHealth(url) {
  return (url ?? '').split('?', 1)[0] === HEALTH_PATH;
}

/**
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
function answerHealth(req, res) {
  if (req.method === 'GET' || req.method === 'HEAD') {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(HEALTH_BODY),
      'cache-control': 'no-store',
    });
    res.end(HEALTH_BODY);
  } else {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-length': 0 });
    res.end();
  }
}

/**
 * Logs an error the app did not handle and answers 500 when nothing was sent yet. The process
 * keeps serving: one bad request must not take the service down.
 * @param {ServerResponse} res
 * @param {unknown} error
 */
function failRequest(res, error) {
  console.error(inspect(error));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('Internal Server Error');
}

/**
 * The WHATWG Request for a Node request; the body is streamed, not buffered.
 * @param {IncomingMessage} req
 * @param {AbortSignal} signal aborted when the client goes away
 * @returns {Request}
 */
export function toRequest(req, signal) {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(
      /** @type {string} */ (req.rawHeaders[i]),
      /** @type {string} */ (req.rawHeaders[i + 1]),
    );
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    signal,
    ...(hasBody
      ? { body: /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(req)), duplex: 'half' }
      : {}),
  });
}

/**
 * Writes a WHATWG Response to a Node response, streaming the body as it is produced (SSE works).
 * @param {Response} response
 * @param {ServerResponse} res
 */
export async function writeResponse(response, res) {
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') res.setHeader(name, value);
  }
  // Joined into one header they would be a different cookie; each is sent on its own line.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  if (!response.body) {
    res.end();
    return;
  }
  await pipeline(
    Readable.fromWeb(/** @type {import('node:stream/web').ReadableStream} */ (response.body)),
    res,
  );
}

/**
 * A request listener serving a fetch-style app (`app.fetch(request) => Response`).
 * @param {FetchApp} app
 * @returns {RequestListener}
 */
export function fetchListener(app) {
  return async (req, res) => {
    const client = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) client.abort();
    });
    /** @type {Response} */
    let response;
    try {
      response = await app.fetch(toRequest(req, client.signal));
      if (!(response instanceof Response)) {
        throw new TypeError(`fetch() returned ${inspect(response)} instead of a Response`);
      }
    } catch (error) {
      failRequest(res, error);
      return;
    }
    try {
      await writeResponse(response, res);
    } catch (error) {
      // The client went away mid-body, or the app's stream failed: nothing left to answer.
      if (!client.signal.aborted) console.error(inspect(error));
      res.destroy();
    }
  };
}

/**
 * Answers an upgrade the app cannot take and closes the socket.
 * @param {import('node:stream').Duplex} socket
 */
function refuseUpgrade(socket) {
  const body = 'This app does not accept protocol upgrades (WebSockets).\n';
  socket.on('error', () => {});
  socket.end(
    'HTTP/1.1 426 Upgrade Required\r\nConnection: close\r\n' +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * An app's server and how to stop it.
 * @typedef {object} AgentServer
 * @property {Server} server
 * @property {(graceMs: number) => Promise<void>} close stops accepting connections, waits for
 *   in-flight requests at most `graceMs`, then cuts every connection, upgraded sockets too
 *   (an app that wants to say goodbye on its WebSockets listens for SIGTERM itself).
 */

/**
 * The server for an app: `/health` first, then the app's listener. An async listener's rejection
 * becomes a 500 and a log line instead of an unhandled rejection that would end the process.
 * HTTP upgrades (WebSockets) go to the app's `upgrade(req, socket, head)` when it has one; a
 * plain listener, Koa or Express app has no way to take them, so those get 426 and a close.
 * @param {RequestListener} listener
 * @param {UpgradeListener | undefined} upgrade
 * @returns {AgentServer}
 */
export function createAgentServer(listener, upgrade) {
  // Counted by hand: server.close() would also wait for upgraded sockets, which may stay open
  // (or half-open) for as long as the app likes.
  let inFlight = 0;
  /** @type {(() => void) | undefined} */
  let onIdle;
  /** @type {Set<import('node:stream').Duplex>} */
  const upgraded = new Set();

  const server = createServer((req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) onIdle?.();
    });
    if (isHealth(req.url)) {
      answerHealth(req, res);
      return;
    }
    try {
      const result = listener(req, res);
      if (result instanceof Promise) result.catch((error) => failRequest(res, error));
    } catch (error) {
      failRequest(res, error);
    }
  });

  server.on('upgrade', (req, socket, head) => {
    if (!upgrade || isHealth(req.url)) {
      refuseUpgrade(socket);
      return;
    }
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    try {
      const result = upgrade(req, socket, head);
      if (result instanceof Promise) {
        result.catch((error) => {
          console.error(inspect(error));
          socket.destroy();
        });
      }
    } catch (error) {
      console.error(inspect(error));
      socket.destroy();
    }
  });

  /** @param {number} graceMs */
  async function close(graceMs) {
    // Also closes idle keep-alive connections, which would otherwise linger for nothing.
    server.close();
    if (inFlight > 0) {
      await new Promise((resolve) => {
        onIdle = () => resolve(undefined);
        setTimeout(resolve, graceMs).unref();
      });
    }
    server.closeAllConnections();
    for (const socket of upgraded) socket.destroy();
  }

  return { server, close };
}
