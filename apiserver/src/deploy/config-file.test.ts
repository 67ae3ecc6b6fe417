import { describe, expect, it } from '@jest/globals';
import {
  defaultEntrypoint,
  mergeConfig,
  parseConfigFile,
  type ConfigFile,
  type EffectiveConfig,
} from './config-file.js';

function parsed(text: string): ConfigFile {
  const result = parseConfigFile(text);
  if (!result.ok) throw new Error(`expected svc.yaml to parse, got: ${result.message}`);
  return result.config;
}

function problem(text: string): string {
  const result = parseConfigFile(text);
  if (result.ok) throw new Error(`expected svc.yaml to be rejected: ${JSON.stringify(result)}`);
  return result.message;
}

describe('parseConfigFile', () => {
  it('reads every known key', () => {
    const text = [
      'name: billing-bot',
      'runtime: python3.12',
      'type: job',
      'entrypoint: src/run.py',
      'memory_mb: 512',
      'regions: [eu-west, us-east]',
      "schedule: '*/15 * * * *'",
      'keep_alive: false',
      'idle_timeout_minutes: 0',
    ].join('\n');
    expect(parsed(text)).toEqual({
      name: 'billing-bot',
      runtime: 'python3.12',
      type: 'job',
      entrypoint: 'src/run.py',
      memory_mb: 512,
      regions: ['eu-west', 'us-east'],
      schedule: '*/15 * * * *',
      keep_alive: false,
      idle_timeout_minutes: 0,
    });
  });

  it.each([
    ['an empty file', ''],
    ['blank lines', '   \n\n'],
    ['only comments', '# only a comment\n  # another\n'],
    ['an empty document', '---\n'],
  ])('reads %s as an empty patch', (_label, text) => {
    expect(parsed(text)).toEqual({});
  });

  it('keeps an explicit schedule: null, distinct from an absent schedule', () => {
    const removing = parsed('schedule: null\n');
    expect(removing).toEqual({ schedule: null });
    expect('schedule' in removing).toBe(true);
    expect(parsed('schedule:\n')).toEqual({ schedule: null });
    expect('schedule' in parsed('memory_mb: 256\n')).toBe(false);
  });

  it('names the unknown keys', () => {
    const message = problem('name: a\ncron: "0 * * * *"\nmemory: 512\n');
    expect(message).toContain('unknown keys cron, memory');
    expect(message).toContain('known keys: name, runtime, type');
  });

  it('rejects a bare language as runtime, asking for a full value', () => {
    expect(problem('runtime: python\n')).toContain(
      'runtime must be a full value such as python3.11, python3.12, python3.13, not "python"',
    );
    expect(problem('runtime: node\n')).toContain('runtime must be a full value such as node20');
  });

  it('rejects an unknown runtime, listing the allowed ones', () => {
    expect(problem('runtime: ruby3\n')).toContain(
      'runtime must be one of python3.11, python3.12, python3.13, node20, node22, node20-ts, node22-ts, bun, dockerfile',
    );
  });

  it.each([
    ['name: Billing_Bot', 'name may hold lowercase letters'],
    ['name: -bot', 'name may hold lowercase letters'],
    ['name: a--b', 'name may hold lowercase letters'],
    [`name: ${'a'.repeat(57)}`, 'name must be at most 56 characters'],
    ['name: 42', 'name must be a string'],
    ['type: cron', 'type must be one of service, job'],
    ['entrypoint: /app/main.py', 'entrypoint must be a relative path'],
    ['entrypoint: ../main.py', 'entrypoint must be a relative path'],
    ['entrypoint: src/../../main.py', 'entrypoint must be a relative path'],
    ['memory_mb: 0', 'memory_mb must be greater than 0'],
    ['memory_mb: 256.5', 'memory_mb must be a whole number'],
    ['memory_mb: "512"', 'memory_mb must be a number'],
    ['regions: []', 'regions must list at least one region'],
    ['regions: eu-west', 'regions must be a list of strings'],
    ['regions: [eu-west, 3]', 'regions[1] must be a string'],
    ['regions: [""]', 'regions[0] must not be empty'],
    ['schedule: 5', 'schedule must be a string, or null to remove it'],
    ['keep_alive: "yes"', 'keep_alive must be true or false'],
    ['keep_alive: yes', 'keep_alive must be true or false'],
    ['build_secrets: "yes"', 'build_secrets must be true or false'],
    ['idle_timeout_minutes: -1', 'idle_timeout_minutes must not be negative'],
    ['memory_mb:', 'memory_mb must not be empty; omit the key to keep the current value'],
    ['runtime: null', 'runtime must not be empty'],
  ])('rejects %p', (text, fragment) => {
    expect(problem(text)).toContain(fragment);
  });

  it('reports every problem at once', () => {
    const message = problem('memory_mb: -5\ntype: daemon\nextra: 1\n');
    expect(message).toBe(
      'unknown key extra (known keys: name, runtime, type, entrypoint, memory_mb, regions, schedule, keep_alive, idle_timeout_minutes, build_secrets); type must be one of service, job; memory_mb must be greater than 0',
    );
    expect(message).toContain('unknown key extra');
    expect(message).toContain('memory_mb must be greater than 0');
    expect(message).toContain('type must be one of service, job');
  });

  it.each([
    ['- name: a', 'got a list'],
    ['just a string', 'got a string'],
    ['42', 'got a number'],
  ])('rejects %p, which is not a mapping', (text, got) => {
    expect(problem(text)).toBe(`the file must be a mapping of keys to values; ${got}`);
  });

  it('rejects text that is not YAML, and duplicate keys', () => {
    expect(problem('name: [unclosed\n')).toMatch(
      /^not valid YAML: Flow sequence .* at line 2, column 1$/,
    );
    expect(problem('name: a\nname: b\n')).toBe(
      'not valid YAML: Map keys must be unique at line 2, column 1',
    );
  });
});

const current: EffectiveConfig = {
  runtime: 'python3.12',
  agentType: 'service',
  entrypoint: 'app/server.py',
  memoryMb: 256,
  regions: ['eu-west'],
  schedule: '0 * * * *',
  keepAlive: false,
  idleTimeoutMinutes: 5,
  buildSecrets: false,
};

describe('mergeConfig', () => {
  it('keeps every current value for an empty file', () => {
    expect(mergeConfig(current, {})).toEqual({ ok: true, config: current });
  });

  it('replaces the values the file sets and keeps the others', () => {
    const result = mergeConfig(current, {
      memory_mb: 1024,
      regions: ['us-east', 'eu-west'],
      keep_alive: true,
      idle_timeout_minutes: 15,
      entrypoint: 'main.py',
      build_secrets: true,
    });
    expect(result).toEqual({
      ok: true,
      config: {
        ...current,
        memoryMb: 1024,
        regions: ['us-east', 'eu-west'],
        keepAlive: true,
        idleTimeoutMinutes: 15,
        entrypoint: 'main.py',
        buildSecrets: true,
      },
    });
    // Kept by a later file that does not say.
    expect(mergeConfig({ ...current, buildSecrets: true }, {})).toMatchObject({
      config: { buildSecrets: true },
    });
  });

  it('removes the schedule for schedule: null and keeps it when absent', () => {
    expect(mergeConfig(current, { schedule: null })).toEqual({
      ok: true,
      config: { ...current, schedule: null },
    });
    expect(mergeConfig(current, { memory_mb: 512 })).toMatchObject({
      ok: true,
      config: { schedule: '0 * * * *' },
    });
  });

  it('stores a new schedule normalised', () => {
    expect(mergeConfig(current, { schedule: ' 30  2 * * 1 ' })).toMatchObject({
      ok: true,
      config: { schedule: '30 2 * * 1' },
    });
  });

  it('fails INVALID with the schedule rejection message', () => {
    expect(mergeConfig(current, { schedule: '* * * * *' })).toEqual({
      ok: false,
      code: 'INVALID',
      message: expect.stringContaining('more often than every 300 seconds'),
    });
    expect(mergeConfig(current, { schedule: '@daily' })).toMatchObject({
      ok: false,
      code: 'INVALID',
    });
  });

  it('accepts the current runtime and rejects a different one with RUNTIME_IMMUTABLE', () => {
    expect(mergeConfig(current, { runtime: 'python3.12' })).toEqual({ ok: true, config: current });
    expect(mergeConfig(current, { runtime: 'python3.13' })).toEqual({
      ok: false,
      code: 'RUNTIME_IMMUTABLE',
      message: expect.stringContaining('runtime cannot change from python3.12 to python3.13'),
    });
  });

  it('rejects keep_alive on a job, whichever side sets it', () => {
    const invalid = {
      ok: false,
      code: 'INVALID',
      message: expect.stringContaining('keep_alive: true is not allowed on a job agent'),
    };
    expect(mergeConfig(current, { type: 'job', keep_alive: true })).toEqual(invalid);
    expect(mergeConfig({ ...current, keepAlive: true }, { type: 'job' })).toEqual(invalid);
    expect(mergeConfig({ ...current, agentType: 'job' }, { keep_alive: true })).toEqual(invalid);
    expect(
      mergeConfig({ ...current, keepAlive: true }, { type: 'job', keep_alive: false }),
    ).toEqual({ ok: true, config: { ...current, agentType: 'job', keepAlive: false } });
  });

  it.each([
    ['python3.11', 'main.py'],
    ['python3.13', 'main.py'],
    ['node20', 'index.js'],
    ['node22', 'index.js'],
    ['bun', 'index.js'],
    ['node20-ts', 'index.ts'],
    ['node22-ts', 'index.ts'],
  ] as const)('defaults a missing entry point for %s to %s', (runtime, entrypoint) => {
    expect(mergeConfig({ ...current, runtime, entrypoint: null }, {})).toMatchObject({
      ok: true,
      config: { entrypoint },
    });
    expect(defaultEntrypoint(runtime)).toBe(entrypoint);
  });

  it('ignores the entry point for runtime dockerfile', () => {
    const dockerfile: EffectiveConfig = { ...current, runtime: 'dockerfile', entrypoint: null };
    expect(mergeConfig(dockerfile, { entrypoint: 'server.js' })).toEqual({
      ok: true,
      config: dockerfile,
    });
    expect(mergeConfig({ ...dockerfile, entrypoint: 'stale.py' }, {})).toEqual({
      ok: true,
      config: dockerfile,
    });
    expect(defaultEntrypoint('dockerfile')).toBeNull();
  });

  it('does not apply name, which only retargets the deploy', () => {
    const result = mergeConfig(current, { name: 'other-agent' });
    expect(result).toEqual({ ok: true, config: current });
    expect(result.ok && 'name' in result.config).toBe(false);
  });

  it('does not share the regions array with its inputs', () => {
    const file: ConfigFile = { regions: ['us-east'] };
    const result = mergeConfig(current, file);
    if (!result.ok) throw new Error(result.message);
    result.config.regions.push('ap-south');
    expect(file.regions).toEqual(['us-east']);
    expect(current.regions).toEqual(['eu-west']);
  });

  it('parses and merges a file end to end', () => {
    const file = parsed('type: job\nschedule: null\nmemory_mb: 2048\n');
    expect(mergeConfig(current, file)).toEqual({
      ok: true,
      config: { ...current, agentType: 'job', schedule: null, memoryMb: 2048 },
    });
  });
});
