/**
 * What `helm template` renders, asserted on the manifests: restricted pods,
 * images from the chart's appVersion, the operator's least-privilege roles,
 * and what each value of the matrix switches on or off.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import {
  baseValues,
  chartDir,
  find,
  renderChart,
  renderText,
  valueMatrix,
  type Manifest,
} from './helm.js';

/** The pod templates of every workload among `objects`. */
function podSpecs(objects: Manifest[]): Array<{ owner: string; spec: Manifest['spec'] }> {
  return objects
    .filter((o) => ['Deployment', 'StatefulSet'].includes(o.kind ?? ''))
    .map((o) => ({ owner: `${o.kind}/${o.metadata?.name}`, spec: o.spec.template.spec }));
}

function envOf(container: Manifest['spec']): Record<string, string> {
  return Object.fromEntries(
    (container.env as Array<{ name: string; value?: string }>).map((e) => [e.name, e.value ?? '']),
  );
}

const appVersion = async () =>
  (parse(await readFile(join(chartDir, 'Chart.yaml'), 'utf8')) as { appVersion: string })
    .appVersion;

describe('every value set', () => {
  it.each(Object.entries(valueMatrix))('renders restricted pods (%s)', async (_name, values) => {
    const pods = podSpecs(await renderChart(values));
    expect(pods.length).toBeGreaterThanOrEqual(2);
    for (const { owner, spec } of pods) {
      expect([owner, spec.securityContext]).toEqual([
        owner,
        expect.objectContaining({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }),
      ]);
      // Service links would put SVC_<SERVICE>_PORT=tcp://... beside the SVC_* settings.
      expect([owner, spec.enableServiceLinks]).toEqual([owner, false]);
      for (const c of spec.containers) {
        expect([owner, c.securityContext]).toEqual([
          owner,
          {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
        ]);
        // A read-only root needs a writable TMPDIR: deploys and vector upserts spool there.
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(c.resources.requests).toBeDefined();
        expect(c.resources.limits.memory).toBeDefined();
      }
    }
  });
});

describe('defaults', () => {
  it('use images tagged with the appVersion, and tell the operator the same tag', async () => {
    const version = await appVersion();
    const objects = await renderChart(baseValues);
    const images = podSpecs(objects).flatMap(({ spec }) =>
      spec.containers.map((c: { image: string }) => c.image),
    );
    expect(images.sort()).toEqual(
      ['apiserver', 'engine', 'operator'].map((n) => `ghcr.io/svc-platform/${n}:${version}`),
    );
    const operator = find(objects, 'Deployment', 'svc-operator').spec.template.spec.containers[0];
    expect(envOf(operator)).toMatchObject({
      SVC_IMAGE_REPOSITORY: 'ghcr.io/svc-platform',
      SVC_IMAGE_TAG: version,
      SVC_DRIVER: 'kubernetes',
      SVC_OPERATOR_NAMESPACE: 'svc-system',
      SVC_PLATFORM_NAMESPACE: 'svc-system',
      SVC_INTERNAL_API_URL: 'http://svc-apiserver.svc-system.svc:8000',
      SVC_INTERNAL_SECRET_FILE: '/etc/svc/secrets/internal-secret',
    });
  });

  it('run two API servers and two operators, each behind a PodDisruptionBudget', async () => {
    const objects = await renderChart(baseValues);
    for (const name of ['svc-apiserver', 'svc-operator']) {
      expect(find(objects, 'Deployment', name).spec.replicas).toBe(2);
      expect(find(objects, 'PodDisruptionBudget', name).spec).toMatchObject({ minAvailable: 1 });
    }
  });

  it('keep the engine on a PersistentVolumeClaim', async () => {
    const engine = find(await renderChart(baseValues), 'StatefulSet', 'svc-engine');
    expect(engine.spec.replicas).toBe(1);
    expect(engine.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi');
    expect(engine.spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it('generate the internal secret and the engine key: 48 random characters, new each render', async () => {
    const read = async () => {
      const secret = find(await renderChart(baseValues), 'Secret', 'svc-secrets');
      return Object.values(secret.data ?? {}).map((v) => Buffer.from(v, 'base64').toString());
    };
    const [first, second] = [await read(), await read()];
    for (const value of [...first, ...second]) expect(value).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(first[0]).not.toBe(first[1]);
    expect(first[0]).not.toBe(second[0]);
  });

  it('give the operator only the verbs it uses, and its Lease only in its namespace', async () => {
    const objects = await renderChart(baseValues);
    expect(find(objects, 'ClusterRole', 'svc-operator').rules).toEqual([
      {
        apiGroups: ['svc.dev'],
        resources: ['agents', 'agentdeployments', 'workspaces'],
        verbs: ['get', 'list', 'watch'],
      },
      {
        apiGroups: ['svc.dev'],
        resources: ['agents/status', 'agentdeployments/status', 'workspaces/status'],
        verbs: ['update'],
      },
      {
        apiGroups: ['apps'],
        resources: ['deployments'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      {
        apiGroups: ['batch'],
        resources: ['jobs', 'cronjobs'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      { apiGroups: [''], resources: ['services'], verbs: ['create', 'patch', 'delete'] },
      {
        apiGroups: ['networking.k8s.io'],
        resources: ['networkpolicies'],
        verbs: ['create', 'patch', 'delete'],
      },
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
    const lease = find(objects, 'Role', 'svc-operator-leader-election');
    expect(lease.metadata?.namespace).toBe('svc-system');
    expect(lease.rules).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'create', 'update'],
      },
    ]);
    const all = objects.flatMap(
      (o) => (o.rules as Array<{ verbs: string[]; resources: string[] }>) ?? [],
    );
    expect(all.flatMap((r) => r.verbs)).not.toContain('*');
    expect(all.flatMap((r) => r.resources)).not.toContain('*');
  });

  it('install the CRDs, kept on uninstall, and identical to crds/*.yaml', async () => {
    const crds = (await renderChart(baseValues)).filter(
      (o) => o.kind === 'CustomResourceDefinition',
    );
    expect(crds.map((c) => c.metadata?.name).sort()).toEqual([
      'agentdeployments.svc.dev',
      'agents.svc.dev',
      'workspaces.svc.dev',
    ]);
    for (const crd of crds) {
      expect(crd.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
      const source = parse(
        await readFile(join(chartDir, '..', '..', 'crds', `${crd.metadata?.name}.yaml`), 'utf8'),
      );
      expect(crd.spec).toEqual(source.spec);
    }
  });
});

describe('metrics', () => {
  it('serve /metrics on a port of its own in every component, with scrape annotations', async () => {
    const objects = await renderChart(baseValues);
    const variables = {
      apiserver: 'SVC_METRICS_PORT',
      operator: 'SVC_METRICS_PORT',
      engine: 'SVC_ENGINE_METRICS_PORT',
    };
    for (const { owner, spec } of podSpecs(objects)) {
      const component = owner.split('/svc-')[1] as keyof typeof variables;
      const container = spec.containers[0];
      expect([owner, envOf(container)[variables[component]]]).toEqual([owner, '9090']);
      expect(container.ports).toContainEqual({
        name: 'metrics',
        containerPort: 9090,
        protocol: 'TCP',
      });
    }
    for (const o of objects.filter((o) => ['Deployment', 'StatefulSet'].includes(o.kind ?? ''))) {
      expect(o.spec.template.metadata.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
        'prometheus.io/path': '/metrics',
      });
    }
  });

  it('metrics.enabled false turns every listener off, and the operator probe with it', async () => {
    const objects = await renderChart({
      ...baseValues,
      metrics: { enabled: false, port: 9090, scrapeAnnotations: true },
    });
    for (const { owner, spec } of podSpecs(objects)) {
      const env = envOf(spec.containers[0]);
      expect(env.SVC_METRICS_PORT ?? env.SVC_ENGINE_METRICS_PORT).toBe('-1');
      if (owner.endsWith('/svc-operator')) expect(spec.containers[0].livenessProbe).toBeUndefined();
    }
  });

  it("probe the operator's liveness at /healthz on its metrics port", async () => {
    const operator = podSpecs(await renderChart(baseValues)).find((p) =>
      p.owner.endsWith('/svc-operator'),
    );
    expect(operator?.spec.containers[0].livenessProbe?.httpGet).toEqual({
      path: '/healthz',
      port: 'metrics',
    });
  });
});

describe('each switch of the matrix', () => {
  it('external Qdrant: no engine, and the API server reaches the given URL', async () => {
    const objects = await renderChart(valueMatrix['external Qdrant']!);
    expect(objects.filter((o) => o.kind === 'StatefulSet')).toEqual([]);
    const regions = JSON.parse(find(objects, 'ConfigMap', 'svc-regions').data!['regions.json']!);
    expect(regions).toEqual([
      { name: 'default', inCluster: true, engineUrl: 'https://qdrant.example.com:6333' },
    ]);
  });

  it('build CA certificates: the operator gets them, and a value that is no PEM is refused', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBcorp\n-----END CERTIFICATE-----\n';
    const objects = await renderChart({
      ...baseValues,
      agents: { buildCACertificates: pem },
    });
    const operator = find(objects, 'Deployment', 'svc-operator').spec.template.spec.containers[0];
    expect(envOf(operator).SVC_BUILD_CA_CERTIFICATES).toBe(pem);
    const plain = await renderChart(baseValues);
    expect(
      envOf(find(plain, 'Deployment', 'svc-operator').spec.template.spec.containers[0]),
    ).not.toHaveProperty('SVC_BUILD_CA_CERTIFICATES');
    const refused = await renderText({
      ...baseValues,
      agents: { buildCACertificates: 'not a certificate' },
    });
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/buildCACertificates/);
  });

  it('CRDs off: no CustomResourceDefinition', async () => {
    const objects = await renderChart(valueMatrix['CRDs off']!);
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition')).toEqual([]);
  });

  it('crds.keep false: the CRDs go with the release', async () => {
    const objects = await renderChart({ ...baseValues, crds: { enabled: true, keep: false } });
    const crd = find(objects, 'CustomResourceDefinition', 'agents.svc.dev');
    expect(crd.metadata?.annotations?.['helm.sh/resource-policy']).toBeUndefined();
  });

  it('NetworkPolicy on: the engine takes connections from the API server only', async () => {
    const objects = await renderChart(valueMatrix['NetworkPolicy and Ingress on']!);
    expect(find(objects, 'NetworkPolicy', 'svc-engine').spec.ingress).toEqual([
      {
        from: [
          {
            podSelector: {
              matchLabels: {
                'app.kubernetes.io/name': 'svc-apiserver',
                'app.kubernetes.io/instance': 'svc',
              },
            },
          },
        ],
        ports: [{ port: 'http', protocol: 'TCP' }],
      },
      { ports: [{ port: 'metrics', protocol: 'TCP' }] },
    ]);
    expect(find(objects, 'NetworkPolicy', 'svc-operator').spec.ingress).toEqual([
      { ports: [{ port: 'metrics', protocol: 'TCP' }] },
    ]);
    const hosts = find(objects, 'Ingress', 'svc').spec.rules.map((r: { host: string }) => r.host);
    expect(hosts).toEqual(['api.example.com', 'vectors.example.com', '*.agents.example.com']);
  });

  it('two regions: the registry lists both, the second with its mounted kubeconfig', async () => {
    const objects = await renderChart(valueMatrix['two regions']!);
    const regions = JSON.parse(find(objects, 'ConfigMap', 'svc-regions').data!['regions.json']!);
    expect(regions).toEqual([
      {
        name: 'us',
        inCluster: true,
        engineUrl: 'http://svc-engine.svc-system.svc:6333',
        publicUrl: 'https://api.us.example.com',
      },
      {
        name: 'eu',
        kubeconfig: '/etc/svc/regions/eu/kubeconfig',
        engineUrl: 'https://engine.eu.example.com',
      },
    ]);
    const pod = find(objects, 'Deployment', 'svc-apiserver').spec.template.spec;
    expect(pod.volumes).toContainEqual({
      name: 'region-eu',
      secret: {
        secretName: 'region-eu-kubeconfig',
        items: [{ key: 'config', path: 'kubeconfig' }],
      },
    });
    expect(
      envOf(find(objects, 'Deployment', 'svc-operator').spec.template.spec.containers[0]),
    ).toMatchObject({ SVC_REGION: 'us' });
  });

  it('apiserver.enabled false (a further region): the operator and engine only', async () => {
    const objects = await renderChart({
      ...baseValues,
      apiserver: { enabled: false },
      operator: { internalApiUrl: 'https://api.us.example.com' },
    });
    const workloads = objects.filter((o) => ['Deployment', 'StatefulSet'].includes(o.kind ?? ''));
    expect(workloads.map((o) => o.metadata?.name).sort()).toEqual(['svc-engine', 'svc-operator']);
    expect(
      objects.some((o) => o.kind === 'ClusterRole' && o.metadata?.name === 'svc-apiserver'),
    ).toBe(false);
  });
});
