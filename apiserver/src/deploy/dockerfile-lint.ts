/**
 * Checks on a `dockerfile` runtime's archive before the build: the conditions
 * that fail the deployment, and the warnings the deployment carries
 * (runtime `dockerfile` in the control-plane contract).
 */

/** One instruction of a Dockerfile, continuation lines joined. */
export interface DockerInstruction {
  /** The instruction keyword, upper-cased (`RUN`, `CMD`, ...). */
  keyword: string;
  /** Everything after the keyword; a heredoc's body follows on new lines. */
  args: string;
  /** 1-based line where the instruction starts. */
  line: number;
}

/** The outcome of {@link lintDockerfile}. */
export interface DockerfileLint {
  /** Why the deployment fails before building, or null. */
  blocking: string | null;
  /** Problems that do not stop the deployment, one sentence each. */
  warnings: string[];
}

/** The port the platform sends a service's traffic to. */
const SERVICE_PORT = '8080';

const DIRECTIVE = /^#\s*(syntax|escape|check)\s*=\s*(\S+)\s*$/i;
const COMMENT_OR_BLANK = /^\s*(#|$)/;
const HEREDOC = /<<(-?)(["']?)([A-Za-z_][\w.-]*)\2/g;
const HEALTH_PATH = /\/health(?![\w-])/;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * Splits a Dockerfile into instructions the way the builder reads it: parser
 * directives (`# escape=`), comment lines (also inside a continuation), line
 * continuations and heredocs (`RUN <<EOF`). Keywords are upper-cased.
 */
export function parseDockerfile(text: string): DockerInstruction[] {
  const lines = text.split(/\r?\n/);
  let escape = '\\';
  for (const line of lines) {
    const directive = DIRECTIVE.exec(line);
    if (!directive) break;
    if (directive[1]?.toLowerCase() === 'escape' && directive[2] === '`') escape = '`';
  }

  const instructions: DockerInstruction[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = i + 1;
    let current = lines[i++] as string;
    if (COMMENT_OR_BLANK.test(current)) continue;

    let logical = '';
    for (;;) {
      const trimmed = current.replace(/\s+$/, '');
      if (!trimmed.endsWith(escape)) {
        logical += current;
        break;
      }
      logical += trimmed.slice(0, -escape.length);
      while (i < lines.length && COMMENT_OR_BLANK.test(lines[i] as string)) i++;
      if (i >= lines.length) break;
      current = lines[i++] as string;
    }

    const parts = /^\s*(\S+)\s*([\s\S]*)$/.exec(logical);
    if (!parts) continue;
    const keyword = (parts[1] as string).toUpperCase();
    let args = (parts[2] as string).trim();
    if (keyword === 'RUN' || keyword === 'COPY' || keyword === 'ADD') {
      for (const heredoc of args.matchAll(HEREDOC)) {
        const stripTabs = heredoc[1] === '-';
        const end = heredoc[3] as string;
        const body: string[] = [];
        while (i < lines.length) {
          const bodyLine = lines[i++] as string;
          if ((stripTabs ? bodyLine.replace(/^\t+/, '') : bodyLine) === end) break;
          body.push(bodyLine);
        }
        args += `\n${body.join('\n')}`;
      }
    }
    instructions.push({ keyword, args, line });
  }
  return instructions;
}

/**
 * Lints the archive of a `dockerfile` agent: `dockerfile` is the text of the
 * Dockerfile at the archive root (null when there is none), `files` every
 * file with its mode bits, `sources` the text of the files read for a
 * `/health` route. Blocking: no Dockerfile, or no CMD and no ENTRYPOINT in the
 * final stage. Warnings: no EXPOSE (or none of port 8080), no `/health` path
 * found, world-writable permissions, running as root. CMD, ENTRYPOINT, USER
 * and EXPOSE count in the final stage and the earlier stages it is built
 * `FROM`; a base image's own settings cannot be seen and do not count.
 */
export function lintDockerfile(
  dockerfile: string | null,
  files: Array<{ path: string; mode: number }>,
  sources: Array<{ path: string; text: string }>,
): DockerfileLint {
  if (dockerfile === null) {
    return {
      blocking:
        'A Dockerfile must be added to the project root: runtime dockerfile builds the ' +
        'Dockerfile at the root of the archive, and there is none.',
      warnings: [],
    };
  }

  const stages = splitStages(parseDockerfile(dockerfile));
  const finalChain = ancestry(stages);
  const inFinal = (keyword: string) =>
    finalChain.flatMap((stage) => stage.instructions.filter((ins) => ins.keyword === keyword));

  const blocking =
    inFinal('CMD').length === 0 && inFinal('ENTRYPOINT').length === 0
      ? 'The Dockerfile has no CMD and no ENTRYPOINT instruction in its final stage, so the ' +
        'image has nothing to run; add one, for example CMD ["node", "server.js"].'
      : null;

  const warnings: string[] = [];
  const exposed = inFinal('EXPOSE').flatMap((ins) => ins.args.split(/\s+/).filter(Boolean));
  if (exposed.length === 0) {
    warnings.push(
      `The Dockerfile has no EXPOSE instruction; the platform sends traffic to port ${SERVICE_PORT}, so add EXPOSE ${SERVICE_PORT}.`,
    );
  } else if (
    exposed.every((port) => /^\d+(\/\w+)?$/.test(port)) &&
    !exposed.some((port) => port.split('/')[0] === SERVICE_PORT)
  ) {
    warnings.push(
      `The Dockerfile exposes ${exposed.join(', ')} but not ${SERVICE_PORT}; the program must listen on port ${SERVICE_PORT}.`,
    );
  }

  if (!HEALTH_PATH.test(dockerfile) && !sources.some((s) => HEALTH_PATH.test(s.text))) {
    warnings.push(
      `No /health path was found in the source or the Dockerfile; the program must answer GET /health with HTTP 200 on port ${SERVICE_PORT}, or the agent is never reported healthy.`,
    );
  }

  const chmods = stages
    .flatMap((stage) => stage.instructions)
    .filter((ins) => ins.keyword === 'RUN')
    .flatMap((ins) => worldWritableChmods(ins.args));
  if (chmods.length > 0) {
    warnings.push(
      `A RUN instruction makes files world-writable (${chmods.map((c) => `\`${c}\``).join(', ')}); grant only the permissions the program needs.`,
    );
  }

  // A symbolic link's own mode is always 0777 and means nothing.
  const writable = files
    .filter((f) => (f.mode & S_IFMT) !== S_IFLNK && (f.mode & 0o002) !== 0)
    .map((f) => f.path);
  if (writable.length > 0) {
    const shown = writable.slice(0, 5).join(', ');
    const more = writable.length > 5 ? ` and ${writable.length - 5} more` : '';
    warnings.push(
      `The archive holds world-writable files (${shown}${more}); remove write permission for others.`,
    );
  }

  const users = inFinal('USER');
  // The final stage's USER wins over those of the stages it is built from.
  const user = users[0]?.args.split(/\s+/)[0]?.split(':')[0];
  if (user === undefined) {
    warnings.push(
      'The container runs as root: the final stage has no USER instruction; add USER with a non-root user.',
    );
  } else if (user === 'root' || user === '0') {
    warnings.push(
      'The container runs as root: the last USER instruction of the final stage is root; switch to a non-root user.',
    );
  }

  return { blocking, warnings };
}

interface Stage {
  /** The `AS` name, lower-cased, or null. */
  name: string | null;
  /** The image or earlier stage it is built `FROM`, lower-cased. */
  base: string;
  instructions: DockerInstruction[];
}

function splitStages(instructions: DockerInstruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const named = words[1]?.toLowerCase() === 'as' ? words[2] : undefined;
      stages.push({
        name: named?.toLowerCase() ?? null,
        base: (words[0] ?? '').toLowerCase(),
        instructions: [],
      });
    } else if (stages.length > 0) {
      stages[stages.length - 1]?.instructions.push(ins);
    } else if (ins.keyword !== 'ARG') {
      // No FROM yet: the builder rejects this file anyway; read it as one stage
      // so the checks still describe what is there.
      stages.push({ name: null, base: '', instructions: [ins] });
    }
  }
  return stages;
}

/**
 * The final stage, then each earlier stage it is built `FROM`, nearest first,
 * with each stage's instructions in reverse order (the last one wins).
 */
function ancestry(stages: Stage[]): Stage[] {
  const chain: Stage[] = [];
  let index = stages.length - 1;
  while (index >= 0) {
    const stage = stages[index] as Stage;
    chain.push({ ...stage, instructions: [...stage.instructions].reverse() });
    index = stages.slice(0, index).findLastIndex((s) => s.name !== null && s.name === stage.base);
  }
  return chain;
}

/** The `chmod` commands in a RUN instruction's text that grant write permission to others. */
function worldWritableChmods(args: string): string[] {
  const text = execFormAsShell(args);
  const found: string[] = [];
  for (const m of text.matchAll(/\bchmod\s+((?:--?[\w-]+(?:=\S*)?\s+)*)([^\s;&|]+)([^;&|\n]*)/g)) {
    if (grantsOthersWrite(m[2] as string)) found.push(m[0].trim());
  }
  return found;
}

function grantsOthersWrite(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) {
    // A sticky world-writable directory (`chmod 1777 /tmp`) is the standard
    // shared scratch space, not a permission mistake.
    if (mode.length === 4 && (Number(mode[0]) & 1) === 1) return false;
    return (Number(mode[mode.length - 1]) & 2) === 2;
  }
  return mode.split(',').some((clause) => {
    const m = /^([ugoa]*)[+=]([rwxXst]*)$/.exec(clause);
    return m !== null && /[oa]/.test(m[1] as string) && (m[2] as string).includes('w');
  });
}

/** `["chmod", "777", "/app"]` read as `chmod 777 /app`; shell form unchanged. */
function execFormAsShell(args: string): string {
  if (!args.startsWith('[')) return args;
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) ? parsed.map(String).join(' ') : args;
  } catch {
    return args;
  }
}
