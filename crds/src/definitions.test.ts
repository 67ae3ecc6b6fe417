import { describe, expect, it } from '@jest/globals';
import {
  agentCrd,
  agentDeploymentCrd,
  allCrds,
  workspaceCrd,
  type CustomResourceDefinition,
} from './definitions.js';

type Node = Record<string, unknown>;

function schemaOf(crd: CustomResourceDefinition): Node {
  return crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};
}

/** Every schema node with its path. */
function* walk(node: Node, path = '$'): Generator<[string, Node]> {
  yield [path, node];
  for (const [key, child] of Object.entries((node.properties as Record<string, Node>) ?? {})) {
    yield* walk(child, `${path}.${key}`);
  }
  if (node.items) yield* walk(node.items as Node, `${path}[]`);
}

/** Property names of spec and status, plus the metadata fields the records map to. */
function fieldsOf(crd: CustomResourceDefinition): Set<string> {
  const root = schemaOf(crd).properties as Record<string, Node>;
  const names = ['name', 'creationTimestamp'];
  for (const part of ['spec', 'status'])
    names.push(...Object.keys((root[part]?.properties as Node) ?? {}));
  return new Set(names);
}

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Where a contract field lives when its camelCase name is not used as is. */
const RENAMED: Record<string, string> = {
  id: 'name', // metadata.name is the UUID
  created_at: 'creationTimestamp',
  cron_schedule: 'schedule',
  cron_paused: 'schedulePaused',
  is_ephemeral: 'ephemeral',
  trigger_source: 'triggerSource',
  agent_count: 'agentCount',
};

function expectCovers(crd: CustomResourceDefinition, contractFields: string[]): void {
  const fields = fieldsOf(crd);
  const missing = contractFields.filter((f) => !fields.has(RENAMED[f] ?? camel(f)));
  expect(missing).toEqual([]);
}

describe('CRD schemas', () => {
  it.each(allCrds.map((crd) => [crd.metadata.name, crd] as const))(
    '%s is structural',
    (_name, crd) => {
      for (const [path, node] of walk(schemaOf(crd))) {
        expect([path, typeof node.type]).toEqual([path, 'string']);
        for (const banned of ['anyOf', 'oneOf', 'allOf', '$ref', '$id', 'additionalProperties']) {
          expect([path, banned in node]).toEqual([path, false]);
        }
      }
    },
  );

  it('covers every field of the contract Agent record', () => {
    expectCovers(agentCrd, [
      'id',
      'user_id',
      'name',
      'description',
      'agent_type',
      'tier',
      'runtime',
      'memory_mb',
      'idle_timeout_minutes',
      'keep_alive',
      'serves_websocket',
      'status',
      'database_collection',
      'model_name',
      'entrypoint',
      'spawn_enabled',
      'allowed_workers',
      'parent_agent_id',
      'workspace_name',
      'deployed',
      'url',
      'regions',
      'pending_regions',
      'regions_total',
      'regions_ready',
      'is_degraded',
      'degraded_reason',
      'failure_code',
      'failure_message',
      'cron_schedule',
      'cron_next_run_at',
      'cron_paused',
      'cron_last_run_at',
      'cron_last_status',
      'cron_last_reason',
      'created_at',
      'updated_at',
    ]);
  });

  it('covers every field of the contract Deployment and Run records', () => {
    expectCovers(agentDeploymentCrd, [
      'id',
      'agent_id',
      'version',
      'state',
      'image_size_mb',
      'regions',
      'pending_regions',
      'queue_position',
      'is_ephemeral',
      'is_serving',
      'is_degraded',
      'regions_total',
      'regions_ready',
      'pending_region_alert_stage',
      'can_redeploy',
      'can_rollback',
      'cancellation_requested',
      'cancellation_reason',
      'created_at',
      'started_at',
      'deployed_at',
      'error_message',
      'trigger_source',
      'machine_started_at',
      'machine_stopped_at',
      'duration_seconds',
    ]);
  });

  it('covers every field of the contract Workspace record', () => {
    expectCovers(workspaceCrd, [
      'id',
      'name',
      'description',
      'regions',
      'agent_count',
      'created_at',
      'updated_at',
    ]);
  });

  it('gives each kind the status subresource, short names and an Age column', () => {
    for (const crd of allCrds) {
      const version = crd.spec.versions[0];
      expect(version?.subresources).toEqual({ status: {} });
      expect(crd.spec.names.shortNames.length).toBeGreaterThan(0);
      expect(version?.additionalPrinterColumns.at(-1)).toMatchObject({
        name: 'Age',
        jsonPath: '.metadata.creationTimestamp',
      });
    }
  });
});
