/**
 * JSON requests to a Kubernetes API with a KubeConfig's server, TLS settings and
 * credentials, without client-node's generated request pipeline: for each request that
 * pipeline re-applies the configuration (reading certificate files, building an agent),
 * serializes through ObjectSerializer and node-fetch and parses the answer back, about a
 * quarter of a millisecond of CPU for a custom-resource write, which the API server pays on
 * every create and the operator on every status write. Here the configuration is applied
 * once a minute (credentials that rotate are picked up) and a request is one `http(s)`
 * call with the bodies as JSON.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** How long the applied configuration (agent, certificates, credentials) is reused. */
const REFRESH_MS = 60_000;

/** An answer of the API other than 2xx: `code` is its HTTP status, as client-node's errors carry it. */
export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
    method: string,
    path: string,
  ) {
    super(`${method} ${path} answered HTTP ${code}: ${body.slice(0, 500)}`);
    this.name = 'KubeApiError';
  }
}

/** Requests to one KubeConfig's current cluster. */
export class KubeJson {
  private applied: { at: number; options: Promise<https.RequestOptions> } | null = null;

  constructor(private readonly kc: KubeConfig) {}

  /**
   * Sends `body` (as JSON, of `contentType`: a PATCH names its patch type) and returns the
   * answer parsed; rejects with KubeApiError on a non-2xx.
   */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<T> {
    const server = this.kc.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig names no current cluster');
    const base = await this.options();
    // Appended, not resolved: a server behind a proxy may have a path of its own (/k8s/...).
    const url = new URL(`${server.replace(/\/+$/, '')}${path}`);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: http.OutgoingHttpHeaders = {
      ...(base.headers as http.OutgoingHttpHeaders),
      accept: 'application/json',
    };
    if (payload !== undefined) {
      headers['content-type'] = contentType;
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const send = url.protocol === 'http:' ? http.request : https.request;
    return new Promise<T>((resolve, reject) => {
      const req = send(url, { ...base, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(new KubeApiError(status, text, method, url.pathname));
            return;
          }
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch (err) {
            reject(err);
          }
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The request options client-node would apply (agent, certificates, Authorization), cached. */
  private options(): Promise<https.RequestOptions> {
    const now = Date.now();
    if (!this.applied || now - this.applied.at > REFRESH_MS) {
      const options: https.RequestOptions = { headers: {} };
      const applying = this.kc.applyToHTTPSOptions(options).then(() => options);
      this.applied = { at: now, options: applying };
      // A failed application is not kept: the next request tries again.
      applying.catch(() => {
        if (this.applied?.options === applying) this.applied = null;
      });
    }
    return this.applied.options;
  }
}
