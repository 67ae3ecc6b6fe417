import { describe, expect, it } from '@jest/globals';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  FALLBACK_ARCHIVE_LIMITS,
  OBJECT_NAMES,
  secretDataKey,
  type Agent,
  type AgentDeployment,
  type Runtime,
} from '../../../../crds/src/index.js';
import {
  agentDeploymentResource,
  agentResource,
} from '../../../../test/factories/custom-resources.js';
import { loadOperatorConfig } from '../../config.js';
import { IMAGE_BUILD_CAPABILITIES, PLATFORM_UID } from './security.js';
import { buildJob, runJob, scheduleCronJob, serviceDeployment } from './workloads.js';

const cfg = loadOperatorConfig({ SVC_INTERNAL_SECRET: 'k3Jx9vQ2mZp7Lw4tR8nB1cY6hF0sD5gA' });

function agent(runtime: Runtime, agentType: 'service' | 'job' = 'service'): Agent {
  return agentResource(
    'svc-live-a',
    { userId: 'acct', agentType, tier: 'starter', runtime, schedule: '*/10 * * * *' },
    { name: '6f1c1b7e-4a43-4a38-9a57-1f1b8f3f9a11', uid: 'u1' },
  );
}

function deployment(of: Agent, ephemeral = false): AgentDeployment {
  return agentDeploymentResource('svc-live-a', of.metadata.name ?? '', {
    metadata: {
      name: ephemeral
        ? 'b2a3c4d5-0000-4000-8000-000000000002'
        : 'a1b2c3d4-0000-4000-8000-000000000001',
      uid: 'u2',
    },
    spec: { ephemeral, archiveId: 'archive' },
    config: { runtime: of.spec.runtime, agentType: of.spec.agentType, entrypoint: 'main.py' },
  });
}

/** Every pod the driver can start for `runtime`, by name. */
function podsOf(runtime: Runtime): Record<string, V1PodSpec | undefined> {
  const service = agent(runtime);
  const job = agent(runtime, 'job');
  return {
    service: serviceDeployment(service, deployment(service), cfg, 1).spec?.template.spec,
    run: runJob(job, deployment(job, true), deployment(job), cfg).spec?.template.spec,
    build: buildJob(deployment(service), cfg).spec?.template.spec,
    schedule: scheduleCronJob(service, deployment(service), cfg, false).spec?.jobTemplate.spec
      ?.template.spec,
  };
}

const containersOf = (pod: V1PodSpec | undefined): V1Container[] => [
  ...(pod?.initContainers ?? []),
  ...(pod?.containers ?? []),
];

describe('pods of standard runtimes', () => {
  describe.each(Object.entries(podsOf('python3.12')))('the %s pod', (_, pod) => {
    it('mounts no service-account token and sees no service links', () => {
      expect(pod?.automountServiceAccountToken).toBe(false);
      expect(pod?.enableServiceLinks).toBe(false);
    });

    it("runs under the runtime's default seccomp profile, as non-root", () => {
      expect(pod?.securityContext).toEqual({
        seccompProfile: { type: 'RuntimeDefault' },
        runAsNonRoot: true,
      });
    });

    it('runs every container as the platform user, with no capability and no escalation', () => {
      const containers = containersOf(pod);
      expect(containers.length).toBeGreaterThan(0);
      for (const container of containers) {
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          runAsNonRoot: true,
          runAsUser: PLATFORM_UID,
        });
      }
    });

    it('mounts nothing but emptyDir volumes', () => {
      for (const volume of pod?.volumes ?? [])
        expect(Object.keys(volume).sort()).toEqual(['emptyDir', 'name']);
    });
  });
});

describe('pods of a dockerfile agent (the documented exceptions)', () => {
  const pods = podsOf('dockerfile');

  it("runs the agent's own image as the user it names, with everything else restricted", () => {
    for (const pod of [pods.service, pods.run]) {
      expect(pod?.automountServiceAccountToken).toBe(false);
      expect(pod?.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
      expect(containersOf(pod).map((c) => c.securityContext)).toEqual([
        { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      ]);
    }
  });

  it('builds the image as root with the file ownership capabilities only', () => {
    const [source, build] = containersOf(pods.build);
    expect(source?.securityContext?.runAsNonRoot).toBe(true);
    expect(build?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'], add: IMAGE_BUILD_CAPABILITIES },
    });
    expect(pods.build?.automountServiceAccountToken).toBe(false);
    expect(pods.build?.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
  });

  it('fires its schedule from a restricted trigger pod like any agent', () => {
    expect(pods.schedule?.securityContext?.runAsNonRoot).toBe(true);
    expect(containersOf(pods.schedule)[0]?.securityContext?.runAsNonRoot).toBe(true);
  });
});

describe('the build Job', () => {
  it('has the builder compile-check the entry point', () => {
    const job = agent('python3.12', 'job');
    const build = buildJob(deployment(job), cfg).spec?.template.spec?.containers[0];
    expect(build?.args).toEqual([
      'build',
      '--source',
      '/workspace',
      '--runtime',
      'python3.12',
      '--entrypoint',
      'main.py',
    ]);
  });

  it('hands the unpack step the archive limits the deployment records, or the fallback', () => {
    const service = agent('python3.12');
    const limits = { maxUnpackedBytes: 1024, maxEntries: 10, maxFileBytes: 512 };
    const envOf = (d: AgentDeployment) =>
      buildJob(d, cfg).spec?.template.spec?.initContainers?.[0]?.env ?? [];
    expect(
      envOf({
        ...deployment(service),
        spec: { ...deployment(service).spec, archiveLimits: limits },
      }),
    ).toContainEqual({ name: 'SVC_ARCHIVE_LIMITS', value: JSON.stringify(limits) });
    expect(envOf(deployment(service))).toContainEqual({
      name: 'SVC_ARCHIVE_LIMITS',
      value: JSON.stringify(FALLBACK_ARCHIVE_LIMITS),
    });
  });
});

describe('certificates builds trust', () => {
  it('gives the build step the extra certificates when the operator has them, and only it', () => {
    const service = agent('python3.12');
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    const spec = buildJob(deployment(service), { ...cfg, buildCaCertificates: pem }).spec?.template
      .spec;
    expect(spec?.containers[0]?.env).toContainEqual({ name: 'SVC_EXTRA_CA_CERTS', value: pem });
    expect(spec?.initContainers?.[0]?.env?.map((e) => e.name)).not.toContain('SVC_EXTRA_CA_CERTS');
    const without = buildJob(deployment(service), { ...cfg, buildCaCertificates: null }).spec
      ?.template.spec;
    expect(without?.containers[0]?.env?.map((e) => e.name)).not.toContain('SVC_EXTRA_CA_CERTS');
  });
});

describe('secrets in the pods', () => {
  it('reads every secret through envFrom, and names each one stored under a derived data key', () => {
    const of = agent('python3.12');
    const long = `L${'K'.repeat(254)}`;
    of.metadata.annotations = { [ANNOTATIONS.longSecretKeys]: JSON.stringify([long]) };
    const container = serviceDeployment(of, deployment(of), cfg, 1).spec?.template.spec
      ?.containers[0] as V1Container;
    const secretName = OBJECT_NAMES.agentSecrets(of.metadata.name ?? '');
    expect(container.envFrom).toEqual([{ secretRef: { name: secretName, optional: true } }]);
    expect(container.env?.find((e) => e.name === long)).toEqual({
      name: long,
      valueFrom: { secretKeyRef: { name: secretName, key: secretDataKey(long), optional: true } },
    });
  });
});

describe("the build Job and the agent's secrets", () => {
  it('gets none unless the deployment opted in, then every one as the agent gets them', () => {
    const of = agent('python3.12');
    const long = `L${'K'.repeat(254)}`;
    of.metadata.annotations = { [ANNOTATIONS.longSecretKeys]: JSON.stringify([long]) };
    const plain = deployment(of);
    const without = buildJob(plain, cfg, of).spec?.template.spec?.containers[0] as V1Container;
    expect(without.envFrom).toBeUndefined();
    expect(without.env?.map((e) => e.name)).toEqual(['SVC_ARTIFACT_URL']);
    const opted: AgentDeployment = {
      ...plain,
      spec: { ...plain.spec, config: { ...plain.spec.config, buildSecrets: true } },
    };
    const container = buildJob(opted, cfg, of).spec?.template.spec?.containers[0] as V1Container;
    const secretName = OBJECT_NAMES.agentSecrets(of.metadata.name ?? '');
    expect(container.envFrom).toEqual([{ secretRef: { name: secretName, optional: true } }]);
    expect(container.env?.find((e) => e.name === long)?.valueFrom).toEqual({
      secretKeyRef: { name: secretName, key: secretDataKey(long), optional: true },
    });
    // The unpack step, which fetches the archive, never gets them.
    const source = buildJob(opted, cfg, of).spec?.template.spec?.initContainers?.[0];
    expect(source?.envFrom).toBeUndefined();
  });
});
