/**
 * Security contexts of the pods the Kubernetes driver starts. Every pod meets
 * the Pod Security Standard "restricted" (non-root, no privilege escalation,
 * every capability dropped, the runtime's default seccomp profile) and mounts
 * no service-account token, with two documented exceptions:
 *
 * - A `dockerfile` agent's own container runs as the user its image names,
 *   which may be root: the contract builds the Dockerfile as written and only
 *   warns about a missing USER. It keeps everything else of "restricted"
 *   (no capabilities, no privilege escalation, seccomp), so it meets
 *   "baseline" and misses "restricted" by `runAsNonRoot` alone.
 * - The image build of a `dockerfile` deployment (kaniko) unpacks image
 *   layers and runs the Dockerfile's RUN steps, which takes root and the file
 *   ownership capabilities. It gets only those (all within "baseline"), and no
 *   privilege escalation.
 *
 * So an account namespace can enforce "baseline" and warn on "restricted";
 * pods of standard runtimes pass "restricted" itself.
 */
import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';

/** The user the platform's own containers run as (runners, builder, fetcher, trigger). */
export const PLATFORM_UID = 10001;

/** Capabilities an image build needs to unpack layers and run RUN steps as their users. */
export const IMAGE_BUILD_CAPABILITIES = [
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'SETFCAP',
  'SETGID',
  'SETUID',
];

/** A container under "restricted", running as {@link PLATFORM_UID}. */
export function restrictedContainer(): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
    runAsUser: PLATFORM_UID,
  };
}

/** A `dockerfile` agent's own container: "restricted" except the user, which its image decides. */
export function customImageContainer(): V1SecurityContext {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
}

/** The image builder's container: root with the file ownership capabilities only ("baseline"). */
export function imageBuildContainer(): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'], add: IMAGE_BUILD_CAPABILITIES },
  };
}

/** The pod-level context: the runtime's default seccomp profile; non-root unless a container may not be. */
export function podSecurity(nonRoot: boolean): V1PodSecurityContext {
  return {
    seccompProfile: { type: 'RuntimeDefault' },
    ...(nonRoot ? { runAsNonRoot: true } : {}),
  };
}
