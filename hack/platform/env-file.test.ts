import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { renderEnv } from './env-file.js';

describe('renderEnv', () => {
  it('renders KEY=value lines that a shell reads back verbatim', () => {
    const vars = { SVC_API_URL: 'http://127.0.0.1:8000', ODD: "it's $HOME `x`" };
    const text = renderEnv(vars);
    expect(text).toBe("SVC_API_URL='http://127.0.0.1:8000'\nODD='it'\\''s $HOME `x`'\n");
    const echoed = execFileSync('bash', [
      '-c',
      `${text}\nprintf '%s|%s' "$SVC_API_URL" "$ODD"`,
    ]).toString();
    expect(echoed).toBe(`${vars.SVC_API_URL}|${vars.ODD}`);
  });
});
