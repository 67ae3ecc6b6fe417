import { describe, expect, it } from '@jest/globals';
import { agentUid, sandboxCommand, type SandboxSpec } from './sandbox-args.js';
import { loopbackPort, pastaArgs } from './network.js';
import { parseProcCgroup } from './cgroups.js';

const spec = (uid: number | null): SandboxSpec => ({
  uid,
  system: [{ path: '/usr' }, { path: '/lib', link: 'usr/lib' }],
  mounts: [
    { source: '/root/.pyenv/versions/3.11.7', target: '/root/.pyenv/versions/3.11.7' },
    { source: '/state/builds/d1/app', target: '/app', writable: true },
  ],
  scratchMb: 64,
  cwd: '/app',
  command: '/usr/bin/python3',
  args: ['main.py'],
});
const paths = { bwrap: '/usr/bin/bwrap', setpriv: '/usr/bin/setpriv' };

/** The value after each occurrence of `flag`. */
const after = (args: string[], flag: string) =>
  args.flatMap((a, i) => (a === flag ? [args.slice(i + 1, i + 3)] : []));

describe('sandboxCommand', () => {
  it('as root, stages every mount through a privileged bwrap and drops to the agent uid', () => {
    const { command, args } = sandboxCommand(spec(1_234_567), paths);
    expect(command).toBe('/usr/bin/bwrap');
    const setpriv = args.indexOf('/usr/bin/setpriv');
    const outer = args.slice(0, setpriv);
    const inner = args.slice(args.indexOf('/usr/bin/bwrap', setpriv));
    expect(after(outer, '--ro-bind')).toContainEqual(['/root/.pyenv/versions/3.11.7', '/tmp/0']);
    expect(after(outer, '--bind')).toContainEqual(['/state/builds/d1/app', '/tmp/1']);
    expect(args.slice(setpriv)).toEqual(
      expect.arrayContaining(['--reuid=1234567', '--regid=1234567', '--clear-groups']),
    );
    // The sandbox itself reads only the staged copies, never the host paths.
    expect(after(inner, '--ro-bind')).toContainEqual(['/tmp/0', '/root/.pyenv/versions/3.11.7']);
    expect(after(inner, '--bind')).toContainEqual(['/tmp/1', '/app']);
    expect(inner.join(' ')).not.toContain('/state/');
    for (const ns of ['--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc'])
      expect(inner).toContain(ns);
    expect(inner.slice(-3)).toEqual(['--', '/usr/bin/python3', 'main.py']);
  });

  it("without root, runs the sandbox directly from the host paths as the caller's user", () => {
    const { args } = sandboxCommand(spec(null), paths);
    expect(args).not.toContain('/usr/bin/setpriv');
    expect(after(args, '--bind')).toContainEqual(['/state/builds/d1/app', '/app']);
    expect(after(args, '--symlink')).toContainEqual(['usr/lib', '/lib']);
    expect(after(args, '--size')).toContainEqual([String(64 * 1024 * 1024), '--tmpfs']);
  });

  it('never gives a sandbox a device beyond the harmless ones, nor devpts', () => {
    const { args } = sandboxCommand(spec(null), paths);
    expect(after(args, '--dev-bind').map(([from]) => from)).toEqual([
      '/dev/null',
      '/dev/zero',
      '/dev/full',
      '/dev/random',
      '/dev/urandom',
      '/dev/tty',
    ]);
    expect(args).not.toContain('--dev');
  });
});

describe('agentUid', () => {
  it('is stable per agent, distinct between agents, and far from system and user uids', () => {
    const a = agentUid('0b6c2f7e-1111-4a4a-8b8b-000000000001');
    expect(agentUid('0b6c2f7e-1111-4a4a-8b8b-000000000001')).toBe(a);
    expect(agentUid('0b6c2f7e-1111-4a4a-8b8b-000000000002')).not.toBe(a);
    expect(a).toBeGreaterThanOrEqual(1_000_000);
    expect(a).toBeLessThan(2_000_000);
  });
});

describe('pastaArgs', () => {
  it('forwards only the named host ports, never the gateway, and no UDP', () => {
    const args = pastaArgs({ publicPorts: [8000, 8001, 8000], runAs: 1_000_001 }, 42);
    expect(args).toContain('--no-map-gw');
    expect(after(args, '--tcp-ns')).toContainEqual(['8000,8001', '--udp-ns']);
    expect(after(args, '--tcp-ports')).toContainEqual(['none', '--udp-ports']);
    expect(after(args, '--udp-ns')[0]?.[0]).toBe('none');
    expect(after(args, '--runas')[0]?.[0]).toBe('1000001');
    expect(args.at(-1)).toBe('42');
  });

  it('forwards no host port into any sandbox (a service is reached on its Unix socket)', () => {
    const args = pastaArgs({ publicPorts: [], runAs: null }, 7);
    expect(after(args, '--tcp-ports')[0]?.[0]).toBe('none');
    expect(after(args, '--tcp-ns')[0]?.[0]).toBe('none');
    expect(args).not.toContain('--runas');
  });
});

describe('loopbackPort', () => {
  it('is the port of a loopback URL, and null for anything else', () => {
    expect(loopbackPort('http://127.0.0.1:8000')).toBe(8000);
    expect(loopbackPort('http://localhost')).toBe(80);
    expect(loopbackPort('https://api.example.com:8443')).toBeNull();
    expect(loopbackPort('not a url')).toBeNull();
    expect(loopbackPort(undefined)).toBeNull();
  });
});

describe('parseProcCgroup', () => {
  it('maps each v1 controller and the v2 hierarchy to its path', () => {
    const paths = parseProcCgroup('4:memory:/a/b\n8:pids:/\n2:cpu,cpuacct:/c\n0::/u\n');
    expect(paths.get('memory')).toBe('/a/b');
    expect(paths.get('pids')).toBe('/');
    expect(paths.get('cpuacct')).toBe('/c');
    expect(paths.get('')).toBe('/u');
  });
});
