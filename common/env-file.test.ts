import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readEnvValue, renderEnv } from './env-file.js';

describe('env files', () => {
  const vars = { SVC_API_URL: 'http://127.0.0.1:8000', ODD: "it's $HOME `x`" };

  it('renders KEY=value lines that a shell reads back verbatim', () => {
    const text = renderEnv(vars);
    expect(text).toBe("SVC_API_URL='http://127.0.0.1:8000'\nODD='it'\\''s $HOME `x`'\n");
    const echoed = execFileSync('bash', [
      '-c',
      `${text}\nprintf '%s|%s' "$SVC_API_URL" "$ODD"`,
    ]).toString();
    expect(echoed).toBe(`${vars.SVC_API_URL}|${vars.ODD}`);
  });

  it('reads values back, and undefined for a missing key', () => {
    const text = renderEnv(vars);
    expect(readEnvValue(text, 'SVC_API_URL')).toBe(vars.SVC_API_URL);
    expect(readEnvValue(text, 'ODD')).toBe(vars.ODD);
    expect(readEnvValue(text, 'SVC_API')).toBeUndefined();
  });
});
