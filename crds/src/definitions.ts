/**
 * The three CustomResourceDefinitions, built from the TypeBox schemas of the
 * kinds. `crds/generate.ts` renders them to YAML for kubectl and the Helm
 * chart; the test harness and `npm start` apply these objects directly.
 */
import type { TSchema } from '@sinclair/typebox';
import { AgentSpec, AgentStatusBlock } from './agent.js';
import { AgentDeploymentSpec, AgentDeploymentStatus } from './agent-deployment.js';
import { WorkspaceSpec, WorkspaceStatus } from './workspace.js';
import { API_GROUP, API_VERSION } from './names.js';

/** A printer column of `kubectl get`. */
interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'boolean';
  jsonPath: string;
  description?: string;
}

/** A CustomResourceDefinition manifest (apiextensions.k8s.io/v1), typed as far as we use it. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced';
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    versions: Array<{
      name: string;
      served: true;
      storage: true;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      schema: { openAPIV3Schema: Record<string, unknown> };
    }>;
  };
}

/** Strips TypeBox's symbol keys and undefined values: what remains is plain JSON Schema. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function crd(opts: {
  kind: string;
  plural: string;
  shortNames: string[];
  description: string;
  spec: TSchema;
  status: TSchema;
  columns: PrinterColumn[];
}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${opts.plural}.${API_GROUP}`,
      labels: { 'app.kubernetes.io/part-of': 'svc' },
    },
    spec: {
      group: API_GROUP,
      scope: 'Namespaced',
      names: {
        kind: opts.kind,
        listKind: `${opts.kind}List`,
        plural: opts.plural,
        singular: opts.kind.toLowerCase(),
        shortNames: opts.shortNames,
        categories: ['svc-platform'],
      },
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...opts.columns,
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: opts.description,
              required: ['spec'],
              properties: {
                apiVersion: {
                  type: 'string',
                  description:
                    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
                },
                kind: {
                  type: 'string',
                  description:
                    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
                },
                // The API server allows nothing but the type here (not even a description):
                // kubectl explain gives ObjectMeta's own. metadata.name is the object's UUID.
                metadata: { type: 'object' },
                spec: plain(opts.spec),
                status: plain(opts.status),
              },
            },
          },
        },
      ],
    },
  };
}

/** CRD of the `Agent` kind. */
export const agentCrd = crd({
  kind: 'Agent',
  plural: 'agents',
  shortNames: ['ag'],
  description: 'A deployable program owned by an account; named by the agent UUID.',
  spec: AgentSpec,
  status: AgentStatusBlock,
  columns: [
    { name: 'Agent', type: 'string', jsonPath: '.spec.name', description: 'The agent name' },
    { name: 'Type', type: 'string', jsonPath: '.spec.agentType' },
    { name: 'Runtime', type: 'string', jsonPath: '.spec.runtime' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    { name: 'URL', type: 'string', jsonPath: '.status.url' },
  ],
});

/** CRD of the `AgentDeployment` kind. */
export const agentDeploymentCrd = crd({
  kind: 'AgentDeployment',
  plural: 'agentdeployments',
  shortNames: ['agd', 'adep'],
  description: 'One deployed version of an agent, or one run of it; named by its UUID.',
  spec: AgentDeploymentSpec,
  status: AgentDeploymentStatus,
  columns: [
    { name: 'Agent', type: 'string', jsonPath: '.spec.agentId' },
    { name: 'Version', type: 'integer', jsonPath: '.spec.version' },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
  ],
});

/** CRD of the `Workspace` kind. */
export const workspaceCrd = crd({
  kind: 'Workspace',
  plural: 'workspaces',
  shortNames: ['ws'],
  description: 'A named group of agents, secrets and collections; named by its UUID.',
  spec: WorkspaceSpec,
  status: WorkspaceStatus,
  columns: [
    { name: 'Workspace', type: 'string', jsonPath: '.spec.name' },
    { name: 'Regions', type: 'string', jsonPath: '.spec.regions' },
    { name: 'Agents', type: 'integer', jsonPath: '.status.agentCount' },
  ],
});

/** All CRDs, in the order they are applied. */
export const allCrds: readonly CustomResourceDefinition[] = [
  agentCrd,
  agentDeploymentCrd,
  workspaceCrd,
];
