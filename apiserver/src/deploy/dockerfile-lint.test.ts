import { describe, expect, it } from '@jest/globals';
import { lintDockerfile, parseDockerfile } from './dockerfile-lint.js';

const dockerfile = (...lines: string[]) => lines.join('\n');

/** A Dockerfile that draws no warning, with a source answering /health. */
const CLEAN = dockerfile(
  'FROM node:22-slim',
  'WORKDIR /app',
  'COPY . .',
  'USER node',
  'EXPOSE 8080',
  'CMD ["node", "server.js"]',
);
const HEALTHY_SOURCE = [
  { path: 'server.js', text: "app.get('/health', (req, res) => res.send('ok'));" },
];
const FILES = [
  { path: 'Dockerfile', mode: 0o100644 },
  { path: 'server.js', mode: 0o100644 },
];

function lint(text: string | null, files = FILES, sources = HEALTHY_SOURCE) {
  return lintDockerfile(text, files, sources);
}

describe('parseDockerfile', () => {
  it('upper-cases keywords, joins continuations and skips comments', () => {
    const text = dockerfile(
      '# syntax=docker/dockerfile:1',
      'from python:3.12 as base',
      '',
      '# install',
      'run apt-get update && \\',
      '    # a comment inside the continuation',
      '',
      '    apt-get install -y curl',
      'Cmd ["python", "main.py"]',
    );
    expect(parseDockerfile(text)).toEqual([
      { keyword: 'FROM', args: 'python:3.12 as base', line: 2 },
      { keyword: 'RUN', args: 'apt-get update &&     apt-get install -y curl', line: 5 },
      { keyword: 'CMD', args: '["python", "main.py"]', line: 9 },
    ]);
  });

  it('honours the escape directive', () => {
    const text = dockerfile('# escape=`', 'FROM mcr.microsoft.com/windows', 'RUN dir `', '  C:\\');
    expect(parseDockerfile(text)).toEqual([
      { keyword: 'FROM', args: 'mcr.microsoft.com/windows', line: 2 },
      { keyword: 'RUN', args: 'dir   C:\\', line: 3 },
    ]);
  });

  it('reads a heredoc body as part of its instruction, not as instructions', () => {
    const text = dockerfile(
      'FROM alpine',
      'RUN <<EOF',
      'CMD this is shell, not an instruction',
      'chmod 777 /data',
      'EOF',
      'ENTRYPOINT ["/bin/app"]',
    );
    expect(parseDockerfile(text)).toEqual([
      { keyword: 'FROM', args: 'alpine', line: 1 },
      {
        keyword: 'RUN',
        args: '<<EOF\nCMD this is shell, not an instruction\nchmod 777 /data',
        line: 2,
      },
      { keyword: 'ENTRYPOINT', args: '["/bin/app"]', line: 6 },
    ]);
  });

  it('handles CRLF line endings', () => {
    expect(parseDockerfile('FROM alpine\r\nCMD ["sh"]\r\n').map((i) => i.keyword)).toEqual([
      'FROM',
      'CMD',
    ]);
  });
});

describe('lintDockerfile', () => {
  it('passes a clean Dockerfile with no warning', () => {
    expect(lint(CLEAN)).toEqual({ blocking: null, warnings: [] });
  });

  it('blocks when there is no Dockerfile at the archive root', () => {
    const result = lint(null);
    expect(result.blocking).toContain('A Dockerfile must be added to the project root');
    expect(result.warnings).toEqual([]);
  });

  it('blocks when there is neither CMD nor ENTRYPOINT, and still reports the warnings', () => {
    const result = lint(dockerfile('FROM node:22', 'COPY . .'));
    expect(result.blocking).toContain('no CMD and no ENTRYPOINT instruction');
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toContain('no EXPOSE instruction');
    expect(result.warnings[1]).toContain('no USER instruction');
  });

  it.each([
    ['CMD', 'cmd node server.js'],
    ['ENTRYPOINT', 'ENTRYPOINT ["/app/run"]'],
    ['a continued ENTRYPOINT', 'ENTRYPOINT \\\n  ["/app/run"]'],
  ])('does not block with %s alone', (_label, instruction) => {
    const result = lint(dockerfile('FROM node:22', 'USER node', 'EXPOSE 8080', instruction));
    expect(result).toEqual({ blocking: null, warnings: [] });
  });

  it('does not count a commented-out CMD', () => {
    expect(lint(dockerfile('FROM node:22', '# CMD ["node", "server.js"]')).blocking).toContain(
      'no CMD and no ENTRYPOINT',
    );
  });

  it('does not count ONBUILD CMD, which runs only in images built from this one', () => {
    expect(lint(dockerfile('FROM node:22', 'ONBUILD CMD ["node"]')).blocking).toContain(
      'no CMD and no ENTRYPOINT',
    );
  });

  describe('multi-stage builds', () => {
    it('blocks when only an earlier, unrelated stage has a CMD', () => {
      const text = dockerfile(
        'FROM golang:1.23 AS build',
        'RUN go build -o /out/app .',
        'CMD ["/out/app"]',
        'FROM gcr.io/distroless/static',
        'COPY --from=build /out/app /app',
        'USER nonroot',
        'EXPOSE 8080',
      );
      expect(lint(text).blocking).toContain('no CMD and no ENTRYPOINT');
    });

    it('counts what the final stage inherits from the stage it is built FROM', () => {
      const text = dockerfile(
        'FROM node:22 AS Base',
        'USER node',
        'EXPOSE 8080',
        'CMD ["node", "server.js"]',
        'FROM base AS final',
        'COPY . .',
      );
      expect(lint(text)).toEqual({ blocking: null, warnings: [] });
    });

    it('takes USER, EXPOSE and CMD of the final stage, not of the builder', () => {
      const text = dockerfile(
        'FROM node:22 AS build',
        'USER node',
        'EXPOSE 8080',
        'RUN npm ci',
        'FROM node:22-slim',
        'COPY --from=build /app /app',
        'CMD ["node", "/app/server.js"]',
      );
      const result = lint(text);
      expect(result.blocking).toBeNull();
      expect(result.warnings).toEqual([
        expect.stringContaining('no EXPOSE instruction'),
        expect.stringContaining('no USER instruction'),
      ]);
    });

    it('lets the final stage USER override an inherited one', () => {
      const text = dockerfile(
        'FROM node:22 AS base',
        'USER node',
        'FROM base',
        'USER root',
        'EXPOSE 8080',
        'CMD ["node"]',
      );
      expect(lint(text).warnings).toEqual([
        expect.stringContaining('the last USER instruction of the final stage is root'),
      ]);
    });
  });

  describe('EXPOSE', () => {
    it('warns when there is no EXPOSE', () => {
      const result = lint(dockerfile('FROM node:22', 'USER node', 'CMD ["node"]'));
      expect(result.warnings).toEqual([
        'The Dockerfile has no EXPOSE instruction; the platform sends traffic to port 8080, so add EXPOSE 8080.',
      ]);
    });

    it('warns when only other ports are exposed', () => {
      const result = lint(
        dockerfile('FROM node:22', 'USER node', 'EXPOSE 3000 9229/tcp', 'CMD ["node"]'),
      );
      expect(result.warnings).toEqual([
        'The Dockerfile exposes 3000, 9229/tcp but not 8080; the program must listen on port 8080.',
      ]);
    });

    it.each(['EXPOSE 8080/tcp', 'EXPOSE 3000 8080', 'EXPOSE ${PORT}'])('accepts %s', (expose) => {
      const result = lint(dockerfile('FROM node:22', 'USER node', expose, 'CMD ["node"]'));
      expect(result.warnings).toEqual([]);
    });
  });

  describe('/health', () => {
    const noHealth = [
      { path: 'server.js', text: "app.get('/', handler); app.get('/healthz', h);" },
    ];

    it('warns when no source and not the Dockerfile mention /health', () => {
      const result = lint(CLEAN, FILES, noHealth);
      expect(result.warnings).toEqual([
        'No /health path was found in the source or the Dockerfile; the program must answer GET /health with HTTP 200 on port 8080, or the agent is never reported healthy.',
      ]);
    });

    it('finds /health in any source file', () => {
      const sources = [...noHealth, { path: 'routes/probe.py', text: '@app.get("/health")' }];
      expect(lint(CLEAN, FILES, sources).warnings).toEqual([]);
    });

    it('finds /health in the Dockerfile', () => {
      const text = `${CLEAN}\nHEALTHCHECK CMD curl -f http://localhost:8080/health || exit 1`;
      expect(lint(text, FILES, []).warnings).toEqual([]);
    });
  });

  describe('world-writable permissions', () => {
    it.each([
      'RUN chmod 777 /app',
      'RUN chmod -R 777 /app',
      'RUN chmod 0666 /app/config',
      'RUN chmod a+rwx /app',
      'RUN chmod o+w /app',
      'RUN chmod u+x,o+w /app',
      'RUN mkdir /data && chmod --recursive 777 /data && echo ok',
      'RUN ["chmod", "777", "/app"]',
      'run chmod \\\n  777 /app',
    ])('warns about %j', (run) => {
      const text = dockerfile('FROM node:22', run, 'USER node', 'EXPOSE 8080', 'CMD ["node"]');
      const { warnings } = lint(text);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^A RUN instruction makes files world-writable \(`chmod .*`\)/);
    });

    it('warns about a chmod in an earlier build stage and in a heredoc', () => {
      const text = dockerfile(
        'FROM node:22 AS build',
        'RUN <<EOF',
        'npm ci',
        'chmod -R 777 dist',
        'EOF',
        'FROM node:22-slim',
        'USER node',
        'EXPOSE 8080',
        'CMD ["node"]',
      );
      expect(lint(text).warnings).toEqual([
        'A RUN instruction makes files world-writable (`chmod -R 777 dist`); grant only the permissions the program needs.',
      ]);
    });

    it.each([
      'RUN chmod 755 /app',
      'RUN chmod +x /app/run',
      'RUN chmod u+w,g+w /app',
      'RUN chmod o-w /app',
      'RUN chmod 1777 /tmp/scratch',
      '# RUN chmod 777 /app',
    ])('does not warn about %p', (run) => {
      const text = dockerfile('FROM node:22', run, 'USER node', 'EXPOSE 8080', 'CMD ["node"]');
      expect(lint(text).warnings).toEqual([]);
    });

    it('warns about world-writable files in the archive, but not symbolic links', () => {
      const files = [
        { path: 'Dockerfile', mode: 0o100644 },
        { path: 'data/cache.db', mode: 0o100666 },
        { path: 'bin/run', mode: 0o100777 },
        { path: 'bin/latest', mode: 0o120777 },
        { path: 'bin/group-only', mode: 0o100775 },
      ];
      expect(lint(CLEAN, files).warnings).toEqual([
        'The archive holds world-writable files (data/cache.db, bin/run); remove write permission for others.',
      ]);
    });

    it('lists at most five world-writable files', () => {
      const files = Array.from({ length: 8 }, (_, n) => ({ path: `f${n}`, mode: 0o666 }));
      expect(lint(CLEAN, files).warnings).toEqual([
        'The archive holds world-writable files (f0, f1, f2, f3, f4 and 3 more); remove write permission for others.',
      ]);
    });
  });

  describe('root user', () => {
    it('warns when there is no USER instruction', () => {
      const result = lint(dockerfile('FROM node:22', 'EXPOSE 8080', 'CMD ["node"]'));
      expect(result.warnings).toEqual([
        'The container runs as root: the final stage has no USER instruction; add USER with a non-root user.',
      ]);
    });

    it.each(['USER root', 'user 0', 'USER 0:0', 'USER root:root'])(
      'warns when the last USER is root (%s)',
      (userLine) => {
        const text = dockerfile(
          'FROM node:22',
          'USER node',
          userLine,
          'EXPOSE 8080',
          'CMD ["node"]',
        );
        expect(lint(text).warnings).toEqual([
          'The container runs as root: the last USER instruction of the final stage is root; switch to a non-root user.',
        ]);
      },
    );

    it.each(['USER 1000', 'USER app:app', 'USER ${APP_UID}'])('accepts %s', (userLine) => {
      const text = dockerfile('FROM node:22', 'USER root', userLine, 'EXPOSE 8080', 'CMD ["node"]');
      expect(lint(text).warnings).toEqual([]);
    });
  });
});
