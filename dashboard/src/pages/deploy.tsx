/**
 * Deploy from the browser: a folder (picked or dropped; `.svcignore` applied
 * here, the list of what is left out shown) or a tar.gz archive, uploaded
 * with progress, then the deployment followed until `active` or its error.
 * A missing agent is created first from svc.yaml's runtime and type, as
 * `svc deploy` does.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../session.js';
import { ApiFailure, failureOf } from '../api/errors.js';
import type { Deployment } from '../api/types.js';
import { droppedFiles, isArchive, pickedFiles } from '../pack/dropped.js';
import {
  packArchive,
  planPack,
  projectFiles,
  type PackPlan,
  type ProjectFile,
} from '../pack/project.js';
import { readFromTarGz } from '../pack/read-tar.js';
import { href } from '../route.js';
import { ErrorNote } from '../ui/error-note.js';
import { svcYamlSettings } from './svc-yaml.js';

type Source = { kind: 'folder'; plan: PackPlan } | { kind: 'archive'; file: File };

const FINAL = new Set(['active', 'failed', 'rolled_back', 'superseded', 'completed']);

/** The deploy page; `agentName` prefills the agent. */
export function DeployPage({ session, agentName }: { session: Session; agentName: string }) {
  const { api } = session;
  const [name, setName] = useState(agentName);
  const [source, setSource] = useState<Source | null>(null);
  const [sent, setSent] = useState<{ sent: number; total: number } | null>(null);
  const [deployment, setDeployment] = useState<Deployment | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);

  useEffect(() => setName(agentName), [agentName]);

  // Follows the deployment until it ends.
  useEffect(() => {
    if (!deployment || FINAL.has(deployment.state)) return;
    const timer = setTimeout(() => {
      api
        .get<Deployment>(`/api/v1/deployments/${deployment.id}`)
        .then(setDeployment, (err: unknown) => setError(failureOf(err)));
    }, 1000);
    return () => clearTimeout(timer);
  }, [deployment]);

  const chooseFolder = async (files: ProjectFile[]) => {
    setError(null);
    if (files.length === 1 && isArchive(files[0]!.path)) {
      setSource({ kind: 'archive', file: files[0]!.file as File });
      return;
    }
    setSource({ kind: 'folder', plan: await planPack(projectFiles(files)) });
  };

  const deploy = async () => {
    if (!source) return;
    setBusy(true);
    setError(null);
    setDeployment(null);
    setSent(null);
    try {
      const agentPath = `/api/v1/agents/${encodeURIComponent(name)}`;
      await ensureAgent(session, agentPath, name, source);
      const archive = source.kind === 'archive' ? source.file : await packArchive(source.plan);
      const created = await api.upload<Deployment>(`${agentPath}/deploy`, archive, (s, total) =>
        setSent({ sent: s, total }),
      );
      setDeployment(created);
    } catch (err) {
      setError(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="deploy-title">
      <h1 id="deploy-title">Deploy</h1>
      <form
        class="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          void deploy();
        }}
      >
        <label for="deploy-agent">Agent name</label>
        <input
          id="deploy-agent"
          required
          pattern="[a-z0-9]+(-[a-z0-9]+)*"
          maxLength={56}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <label for="deploy-folder">Project folder</label>
        <input
          id="deploy-folder"
          type="file"
          {...{ webkitdirectory: true }}
          multiple
          onChange={(e) => {
            const list = e.currentTarget.files;
            if (list && list.length > 0) void chooseFolder(pickedFiles(list));
          }}
        />
        <label for="deploy-archive">Or an archive (.tar.gz)</label>
        <input
          id="deploy-archive"
          type="file"
          accept=".tar.gz,.tgz,application/gzip"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) setSource({ kind: 'archive', file });
          }}
        />
        <div
          class={`drop ${over ? 'over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(e) => {
            e.preventDefault();
            setOver(false);
            if (e.dataTransfer)
              void droppedFiles(e.dataTransfer.items).then(chooseFolder, (err: unknown) =>
                setError(failureOf(err)),
              );
          }}
        >
          …or drop a folder or a .tar.gz here
        </div>
        <button type="submit" disabled={busy || !source || name === ''}>
          Deploy
        </button>
      </form>
      {source?.kind === 'folder' && <PlanSummary plan={source.plan} />}
      {source?.kind === 'archive' && <p>Archive {source.file.name}, uploaded as it is.</p>}
      {sent && (
        <p>
          <label for="upload-progress">Upload</label>{' '}
          <progress id="upload-progress" max={sent.total || 1} value={sent.sent} />{' '}
          {Math.round((100 * sent.sent) / (sent.total || 1))}%
        </p>
      )}
      {deployment && (
        <div class="card" role="status" data-testid="deploy-status">
          Version {deployment.version}:{' '}
          <span class={`badge s-${deployment.state}`}>{deployment.state}</span>
          {!FINAL.has(deployment.state) && <progress aria-label="Build progress" />}
          {deployment.error_message && <pre class="message">{deployment.error_message}</pre>}
          <p>
            <a href={href('agents', name)}>Open the agent</a>
          </p>
        </div>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

function PlanSummary({ plan }: { plan: PackPlan }) {
  return (
    <details class="card" open>
      <summary>
        {plan.included.length} files to upload, {plan.excluded.length} left out
      </summary>
      <div class="two-cols">
        <ul aria-label="Uploaded" data-testid="included">
          {plan.included.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
        <ul aria-label="Left out" data-testid="excluded">
          {plan.excluded.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </div>
    </details>
  );
}

/** Creates the agent when it does not exist, with svc.yaml's runtime and type (folder or archive). */
async function ensureAgent(
  session: Session,
  agentPath: string,
  name: string,
  source: Source,
): Promise<void> {
  try {
    await session.api.get(agentPath);
    return;
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.code !== 'AGENT_NOT_FOUND') throw err;
  }
  const yaml =
    source.kind === 'folder'
      ? await source.plan.files.find((f) => f.path === 'svc.yaml')?.file.text()
      : await readFromTarGz(source.file, 'svc.yaml');
  const settings = yaml ? svcYamlSettings(yaml) : {};
  await session.api.post('/api/v1/agents', {
    name,
    ...(settings.runtime ? { runtime: settings.runtime } : {}),
    ...(settings.type ? { agent_type: settings.type } : {}),
  });
}
