/**
 * Waiting for a just-woken agent to accept connections. An agent's address can be published a
 * moment before it is reachable: on Kubernetes the Service's endpoints and kube-proxy's rules
 * follow the pod's readiness by up to a second, and until then a connection is refused. A
 * refused connection never reached the agent, so trying again is safe for any request.
 */
import { connect } from 'node:net';
import type { EndpointTarget } from '../../../common/agent-endpoint.js';

/** Errors of a connection that was never accepted (nothing was sent to the agent). */
const NOT_YET = new Set(['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** Whether one connection to `target` opens (closed at once); the error code when it does not. */
function tryConnect(target: EndpointTarget, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket =
      'socketPath' in target
        ? connect({ path: target.socketPath })
        : connect(target.port, target.host);
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve('ETIMEDOUT');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'EUNKNOWN'));
  });
}

/**
 * Resolves once `target` accepts a connection, or at `deadline` (epoch ms), whichever is first;
 * true when it accepted. Refusals are retried every `everyMs`; any other error ends the wait
 * (the request then meets it and answers as the edge does).
 */
export async function awaitConnectable(
  target: EndpointTarget,
  deadline: number,
  everyMs = 20,
): Promise<boolean> {
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    const code = await tryConnect(target, left);
    if (code === null) return true;
    if (!NOT_YET.has(code)) return false;
    await new Promise((r) => setTimeout(r, Math.min(everyMs, Math.max(0, deadline - Date.now()))));
  }
}
