/** The control plane's OpenAPI document: its routes and the named schemas they use. */
import { buildOpenApiDocument } from '../openapi/document.js';
import type { AnyRoute } from './routing.js';
import {
  AgentAction,
  AgentConfigFile,
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
import {
  WorkspaceAgentList,
  WorkspaceAgentRecord,
  WorkspaceCreate,
  WorkspaceDeleteResult,
  WorkspaceList,
  WorkspaceRecord,
  WorkspaceUpdate,
} from './routes/workspaces/schema.js';
import {
  RegionChangeAccepted,
  RegionChangeNoOp,
  RegionsUpdateRequest,
} from './routes/regions/schema.js';
import { OperationRecord } from './routes/operations/schema.js';
import { CollectionUpdateRequest } from './routes/collections/schema.js';
import {
  SecretCreate,
  SecretList,
  SecretRecord,
  SecretRotate,
  WorkspaceSecretList,
  WorkspaceSecretRecord,
} from './routes/secrets/schema.js';
import { HomeRegionChange, MeRecord } from './routes/account/schema.js';
import {
  UsageEventPage,
  UsageEventRecord,
  UsageReport,
  UsageSummaryRecord,
  UsageTotalsRecord,
} from './routes/usage/schema.js';
import {
  CodehostConnect,
  CodehostLinkCreate,
  CodehostLinkRecord,
  CodehostRecord,
  CodehostStatus,
} from './routes/codehost/schema.js';
import { WebhookResult } from './routes/webhooks/schema.js';

/** Builds the document of `routes`. */
export function controlPlaneOpenApi(routes: readonly AnyRoute[]) {
  return buildOpenApiDocument(
    {
      title: 'svc control plane',
      version: '1.0.0',
      description:
        'Agents, deployments, runs, schedules, spawns, logs, secrets, workspaces and account. Errors are {detail:{code,message,...}}; switch on detail.code. The key injected into an agent as SVC_API_KEY acts on that agent only: any other agent or its deployments are 404 as if they did not exist, lists hold only that agent, routes acting on the whole account are 403 AGENT_KEY_FORBIDDEN; it may spawn the job agents its agent is allowed to. It is revoked (401 INVALID_API_KEY) when its deployment no longer serves or the agent is deleted.',
    },
    routes,
    {
      Agent: AgentRecord,
      AgentCreate,
      AgentUpdate,
      AgentList,
      AgentAction,
      AgentStatusDetail,
      AgentConfigFile,
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
      Workspace: WorkspaceRecord,
      WorkspaceCreate,
      WorkspaceUpdate,
      WorkspaceList,
      WorkspaceDeleteResult,
      WorkspaceAgent: WorkspaceAgentRecord,
      WorkspaceAgentList,
      RegionsUpdateRequest,
      RegionChangeNoOp,
      RegionChangeAccepted,
      CollectionUpdateRequest,
      Operation: OperationRecord,
      Secret: SecretRecord,
      SecretCreate,
      SecretRotate,
      SecretList,
      WorkspaceSecret: WorkspaceSecretRecord,
      WorkspaceSecretList,
      Me: MeRecord,
      HomeRegionChange,
      UsageSummary: UsageSummaryRecord,
      UsageTotals: UsageTotalsRecord,
      UsageEvent: UsageEventRecord,
      UsageEventPage,
      UsageReport,
      Codehost: CodehostRecord,
      CodehostConnect,
      CodehostStatus,
      CodehostLinkCreate,
      CodehostLink: CodehostLinkRecord,
      WebhookResult,
    },
  );
}
