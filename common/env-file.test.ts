import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvValue, renderEnv } from './env-file.js';

describe('env files', () => {
  const vars = { SVC_API_URL: 'http://127.0.0.1:8000', ODD: "it's $HOME `x`" };

  it('renders export KEY=value lines that a shell reads back verbatim', () => {
    const text = renderEnv(vars);
    expect(text).toBe(
      "export SVC_API_URL='http://127.0.0.1:8000'\nexport ODD='it'\\''s $HOME `x`'\n",
    );
    const echoed = execFileSync('bash', [
      '-c',
      `${text}\nprintf '%s|%s' "$SVC_API_URL" "$ODD"`,
    ]).toString();
    expect(echoed).toBe(`${vars.SVC_API_URL}|${vars.ODD}`);
  });

  it('exports them: a program started by the shell that sourced the file sees them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-env-'));
    try {
      writeFileSync(join(dir, 'env'), renderEnv(vars));
      const seen = execFileSync(
        'sh',
        [
          '-c',
          `. ./env && node -e 'process.stdout.write(process.env.SVC_API_URL + "|" + process.env.ODD)'`,
        ],
        { cwd: dir, env: { PATH: process.env.PATH } },
      ).toString();
      expect(seen).toBe(`${vars.SVC_API_URL}|${vars.ODD}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads values back, and undefined for a missing key', () => {
    const text = renderEnv(vars);
    expect(readEnvValue(text, 'SVC_API_URL')).toBe(vars.SVC_API_URL);
    expect(readEnvValue(text, 'ODD')).toBe(vars.ODD);
    expect(readEnvValue(text, 'SVC_API')).toBeUndefined();
  });

  it('reads files written before the lines were exported', () => {
    expect(readEnvValue("SVC_API_KEY='svc_live_x'\n", 'SVC_API_KEY')).toBe('svc_live_x');
  });
});
