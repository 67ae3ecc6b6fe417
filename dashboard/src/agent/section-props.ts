/** What an agent page's sections that change the agent are given. */
import type { Session } from '../session.js';
import type { Agent } from '../api/types.js';

/** Props of a section that changes the agent and then has the page read it again. */
export interface AgentChangeProps {
  session: Session;
  agent: Agent;
  /** Reads the agent again after a change. */
  onChange: () => Promise<void>;
}
