/**
 * The rules of agent names beyond their syntax (the reserved words, no UUID look-alikes),
 * and the address label drawn from a name.
 */
import { randomBytes } from 'node:crypto';

/** Agent name syntax: lowercase letters, digits, single hyphens between them. */
export const AGENT_NAME_REGEX = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The longest agent name (it becomes the first label of the agent's address with 7 more characters). */
export const AGENT_NAME_MAX = 56;

/**
 * Names an agent cannot take: they would collide with the platform's own
 * hostnames and paths, Kubernetes system namespaces, or read as something
 * other than an agent in logs and URLs.
 */
export const RESERVED_AGENT_NAMES: ReadonlySet<string> = new Set([
  'admin',
  'agent',
  'agents',
  'api',
  'app',
  'apps',
  'assets',
  'auth',
  'cdn',
  'codehost',
  'console',
  'dashboard',
  'default',
  'deploy',
  'deployments',
  'docs',
  'edge',
  'ftp',
  'health',
  'internal',
  'kube-node-lease',
  'kube-public',
  'kube-system',
  'kubernetes',
  'liveness',
  'localhost',
  'login',
  'logout',
  'mail',
  'metrics',
  'null',
  'openapi',
  'operator',
  'readiness',
  'root',
  'runs',
  'static',
  'status',
  'svc',
  'system',
  'undefined',
  'vector',
  'vectors',
  'webhooks',
  'workspaces',
  'www',
]);

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a UUID; agent routes read such a path segment as an id, never as a name. */
export function isUuid(value: string): boolean {
  return UUID_SHAPE.test(value.toLowerCase());
}

/** `<name>-<6 random lowercase letters or digits>`: an agent's address label. */
export function drawAddressLabel(name: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(6);
  return `${name}-${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')}`;
}
