/**
 * One HTTP request to an agent's service at its endpoint (common/agent-endpoint.ts): a Unix
 * socket for the local driver's services, which `fetch` cannot reach.
 */
import { request } from 'node:http';
import { endpointTarget } from '../../../../common/agent-endpoint.js';

/** What a service answered. */
export interface ServiceAnswer {
  status: number;
  body: string;
}

/** Sends one request to `path` of the service at `endpoint`; rejects when it cannot be reached. */
export function requestService(
  endpoint: string,
  path: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeoutMs: number;
  },
): Promise<ServiceAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { ...endpointTarget(endpoint), path, method: init.method ?? 'GET', headers: init.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.setTimeout(init.timeoutMs, () =>
      req.destroy(new Error(`no answer from ${endpoint}${path} in ${init.timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
