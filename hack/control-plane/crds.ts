/**
 * Applies the platform's CRDs with server-side apply and waits until the API
 * serves them. The request is raw JSON on purpose: the typed client's
 * serializer knows `enum` only as `_enum` (and likewise the `x-kubernetes-*`
 * keys), so sending a plain schema through it silently drops them.
 */
import { request } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { allCrds, type CustomResourceDefinition } from '../../crds/src/index.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Sends one request to the cluster of `kc` and resolves with the status and parsed JSON body. */
async function kubeRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(path, cluster.server);
  const options: Parameters<typeof request>[1] = {
    method,
    headers: { accept: 'application/json' },
  };
  await kc.applyToHTTPSOptions(options);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload) options.headers = { ...options.headers, 'content-type': contentType };
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Server-side applies one CRD (field manager `svc`), taking ownership of every field. */
async function applyCrd(kc: KubeConfig, crd: CustomResourceDefinition): Promise<void> {
  const { status, body } = await kubeRequest(
    kc,
    'PATCH',
    `${CRD_PATH}/${crd.metadata.name}?fieldManager=svc&force=true`,
    crd,
    'application/apply-patch+yaml',
  );
  if (status >= 300)
    throw new Error(
      `applying CRD ${crd.metadata.name} failed (${status}): ${String(body.message)}`,
    );
}

function isEstablished(crd: Record<string, unknown>): boolean {
  const conditions = (
    crd.status as { conditions?: Array<{ type: string; status: string }> } | undefined
  )?.conditions;
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}

/** Applies every CRD, then waits for each one's `Established` condition. */
export async function applyCrds(kc: KubeConfig, timeoutMs = 30_000): Promise<void> {
  for (const crd of allCrds) await applyCrd(kc, crd);
  const deadline = Date.now() + timeoutMs;
  for (const crd of allCrds) {
    for (;;) {
      const { body } = await kubeRequest(kc, 'GET', `${CRD_PATH}/${crd.metadata.name}`);
      if (isEstablished(body)) break;
      if (Date.now() > deadline)
        throw new Error(`CRD ${crd.metadata.name} not established after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
