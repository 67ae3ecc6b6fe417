/**
 * Unauthenticated monitoring probes (no compatibility promise):
 * `GET /api/v1/health` and `/liveness` answer while the process serves, with
 * the single-machine platform's report on its components (restarts) when it
 * keeps one; `/readiness` also checks each dependency and answers 503 naming
 * the ones down.
 */
import * as yup from 'yup';
import type { ComponentReport } from '../../../../../common/component-status.js';
import { toJsonSchema } from '../../../validation/json-schema.js';
import { route, type AnyRoute } from '../../routing.js';

/** A dependency check used by `/readiness`; resolves when the dependency is usable. */
export interface DependencyProbe {
  name: string;
  check(): Promise<void>;
}

/** The platform's report on its components, when there is one. */
export type ComponentsReporter = () => Promise<ComponentReport | undefined>;

const ComponentStatus = yup.object({
  state: yup.string().oneOf(['running', 'restarting', 'failed']).required(),
  since: yup
    .string()
    .required()
    .meta({ openapi: { format: 'date-time' } }),
  restarts: yup.number().integer().min(0).required(),
  last_exit: yup.string().nullable().defined().meta({ example: 'signal SIGKILL' }),
  last_exit_at: yup
    .string()
    .nullable()
    .defined()
    .meta({ openapi: { format: 'date-time' } }),
});
const Status = yup.object({
  status: yup.string().oneOf(['ok']).required(),
  components: yup
    .object()
    .optional()
    .meta({
      description:
        "Only on the single-machine platform (npm start): its supervisor's report on each " +
        'component it restarts when it exits (engine, apiserver, operator, etcd, ' +
        'kube-apiserver, kube-controller-manager, ferretdb).',
      openapi: { additionalProperties: toJsonSchema(ComponentStatus) },
    }),
});
const Readiness = yup.object({
  status: yup.string().oneOf(['ok', 'unavailable']).required(),
  dependencies: yup
    .object()
    .meta({ openapi: { additionalProperties: { type: 'string', enum: ['ok', 'unavailable'] } } }),
});

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Routes of the health probes; `components` adds the platform's report to `/api/v1/health`. */
export function healthRoutes(
  probes: readonly DependencyProbe[],
  components?: ComponentsReporter,
): AnyRoute[] {
  const ok = route({
    method: 'get',
    path: '/api/v1/health',
    operationId: 'health',
    summary: 'Health probe',
    description: 'Unauthenticated and exempt from rate limiting. No compatibility promise.',
    tag: 'Probes',
    authenticated: false,
    responses: { 200: { description: 'The server is serving.', schema: Status } },
    errors: [],
    handler: async (ctx) => {
      const report = await components?.();
      ctx.body = report ? { status: 'ok', components: report } : { status: 'ok' };
    },
  });
  return [
    ok,
    { ...ok, path: '/liveness', operationId: 'liveness', summary: 'Liveness probe' },
    route({
      method: 'get',
      path: '/readiness',
      operationId: 'readiness',
      summary: 'Readiness probe',
      description:
        'Checks MongoDB and the Kubernetes API; 503 names the dependencies that are down.',
      tag: 'Probes',
      authenticated: false,
      responses: {
        200: { description: 'Every dependency answers.', schema: Readiness },
        503: { description: 'A dependency is down.', schema: Readiness },
      },
      errors: [],
      handler: async (ctx) => {
        const results = await Promise.all(
          probes.map(async (probe) => {
            try {
              await withTimeout(probe.check(), 2000);
              return [probe.name, 'ok'] as const;
            } catch (err) {
              ctx.state.log.warn('readiness check failed', {
                dependency: probe.name,
                err: String(err),
              });
              return [probe.name, 'unavailable'] as const;
            }
          }),
        );
        const ready = results.every(([, state]) => state === 'ok');
        ctx.status = ready ? 200 : 503;
        ctx.body = {
          status: ready ? 'ok' : 'unavailable',
          dependencies: Object.fromEntries(results),
        };
      },
    }),
  ];
}
