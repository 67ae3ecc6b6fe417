/** Readiness probes for the components the scripts start. */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

/** Options of {@link httpOk}. */
export interface ProbeOptions {
  ca?: Buffer;
  token?: string;
  timeoutMs?: number;
  /** Accept any server certificate (a loopback component's self-signed one). */
  insecure?: boolean;
}

/** True when `url` answers 200 within the timeout. */
export function httpOk(url: string, opts: ProbeOptions = {}): Promise<boolean> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(
      target,
      {
        method: 'GET',
        ca: opts.ca,
        rejectUnauthorized: !opts.insecure,
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
        timeout: opts.timeoutMs ?? 2000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
