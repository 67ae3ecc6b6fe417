/** The control plane's OpenAPI document: its routes and the named schemas they use. */
import { buildOpenApiDocument } from '../openapi/document.js';
import type { AnyRoute } from './routing.js';
import {
  AgentAction,
  AgentCreate,
  AgentList,
  AgentRecord,
  AgentStatusDetail,
  AgentUpdate,
} from './routes/agents/schema.js';
import { DeploymentList, DeploymentRecord, RunPayload } from './routes/deployments/schema.js';
import {
  RunAccepted,
  RunList,
  RunRecord,
  RunRequest,
  ScheduleState,
  SpawnRequest,
  SpawnResponse,
} from './routes/runs/schema.js';
import { LogEntryRecord, LogIngest, LogPage } from './routes/logs/schema.js';

/** Builds the document of `routes`. */
export function controlPlaneOpenApi(routes: readonly AnyRoute[]) {
  return buildOpenApiDocument(
    {
      title: 'svc control plane',
      version: '1.0.0',
      description:
        'Agents, deployments, runs, schedules, spawns, logs, secrets, workspaces and account. Errors are {detail:{code,message,...}}; switch on detail.code.',
    },
    routes,
    {
      Agent: AgentRecord,
      AgentCreate,
      AgentUpdate,
      AgentList,
      AgentAction,
      AgentStatusDetail,
      Deployment: DeploymentRecord,
      DeploymentList,
      RunPayload,
      RunRequest,
      RunAccepted,
      Run: RunRecord,
      RunList,
      ScheduleState,
      SpawnRequest,
      SpawnResponse,
      LogEntry: LogEntryRecord,
      LogPage,
      LogIngest,
    },
  );
}
