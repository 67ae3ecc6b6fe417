/** The signed-in layout: the account and environment, the navigation, and the current page. */
import { useEffect, useRef } from 'preact/hooks';
import type { Session } from './session.js';
import { AgentPage } from './agent/agent-page.js';
import { ExplorerPage } from './explorer/explorer-page.js';
import { AgentsPage } from './pages/agents.js';
import { CollectionsPage } from './pages/collections.js';
import { DeployPage } from './pages/deploy.js';
import { UsagePage } from './pages/usage.js';
import { WorkspacesPage } from './pages/workspaces.js';
import { href, useRoute } from './route.js';

const NAV = [
  ['agents', 'Agents'],
  ['deploy', 'Deploy'],
  ['workspaces', 'Workspaces'],
  ['collections', 'Collections'],
  ['usage', 'Usage'],
] as const;

/** The shell around every signed-in page. */
export function Shell({ session }: { session: Session }) {
  const route = useRoute();
  const [section = 'agents', name] = route;
  const { me } = session;
  // A new page takes the focus (keyboard and screen-reader users start at its content).
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) firstRender.current = false;
    else document.getElementById('main')?.focus();
  }, [section, name]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">svc</strong>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([id, label]) => (
              <li key={id}>
                <a href={href(id)} aria-current={section === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="account">
          {me.name}{' '}
          <span class={`env env-${me.environment}`} data-testid="environment">
            {me.environment}
          </span>
        </span>
        <button type="button" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page(session, section, name)}
      </main>
    </>
  );
}

function page(session: Session, section: string, name?: string) {
  switch (section) {
    case 'deploy':
      return <DeployPage session={session} agentName={name ?? ''} />;
    case 'workspaces':
      return <WorkspacesPage session={session} />;
    case 'collections':
      return name ? (
        <ExplorerPage session={session} name={name} />
      ) : (
        <CollectionsPage session={session} />
      );
    case 'usage':
      return <UsagePage session={session} />;
    default:
      return name ? <AgentPage session={session} name={name} /> : <AgentsPage session={session} />;
  }
}
