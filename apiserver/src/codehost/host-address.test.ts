import { describe, expect, it } from '@jest/globals';
import { gitEnvironment } from './git.js';
import { HostUnresolved, pinHost, refusedAddress } from './host-address.js';
import { HostUrlError } from './host-url.js';

const strict = { allowLoopbackHttp: false };
const tests = { allowLoopbackHttp: true };
const inside = { allowLoopbackHttp: false, allowPrivateHosts: true };

describe('refusedAddress', () => {
  it("refuses this machine, its networks and the cloud's metadata address", () => {
    for (const address of [
      '127.0.0.1',
      '127.3.2.1',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
    ]) {
      expect([address, refusedAddress(address, strict)]).toEqual([address, expect.any(String)]);
    }
  });

  it('allows public addresses', () => {
    for (const address of ['140.82.112.3', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect([address, refusedAddress(address, strict)]).toEqual([address, null]);
    }
  });

  it('allows loopback only where loopback HTTP is allowed, private networks only where those are', () => {
    expect(refusedAddress('127.0.0.1', tests)).toBeNull();
    expect(refusedAddress('10.1.2.3', tests)).toMatch(/not a public/);
    expect(refusedAddress('10.1.2.3', inside)).toBeNull();
    expect(refusedAddress('127.0.0.1', inside)).toMatch(/loopback/);
  });
});

describe('pinHost', () => {
  it('pins an address literal to itself, with the default port of its scheme', async () => {
    await expect(pinHost('https://8.8.8.8/x', strict)).resolves.toEqual({
      hostname: '8.8.8.8',
      port: 443,
      address: '8.8.8.8',
      family: 4,
    });
    await expect(pinHost('http://127.0.0.1:3000', tests)).resolves.toMatchObject({ port: 3000 });
  });

  it('refuses a name that resolves to loopback, and says so', async () => {
    await expect(pinHost('https://localhost:6443', strict)).rejects.toThrow(/loopback/);
    await expect(pinHost('https://[::1]:6443', strict)).rejects.toThrow(HostUrlError);
  });

  it('tells a name that does not resolve apart from a refused one', async () => {
    await expect(pinHost('https://no-such-host.invalid', strict)).rejects.toThrow(HostUnresolved);
  });
});

describe('gitEnvironment', () => {
  it('pins the host name to the checked address for curl, and leaves a literal alone', () => {
    const values = (env: NodeJS.ProcessEnv) =>
      Object.entries(env)
        .filter(([k]) => k.startsWith('GIT_CONFIG_KEY_'))
        .map(([k, v]) => [v, env[k.replace('KEY', 'VALUE')]]);
    const pinned = gitEnvironment(null, '/tmp', {
      hostname: 'git.example.com',
      port: 443,
      address: '2606:4700::1111',
      family: 6,
    });
    expect(values(pinned)).toContainEqual([
      'http.curloptResolve',
      'git.example.com:443:[2606:4700::1111]',
    ]);
    const literal = gitEnvironment(null, '/tmp', {
      hostname: '8.8.8.8',
      port: 443,
      address: '8.8.8.8',
      family: 4,
    });
    expect(values(literal).map(([k]) => k)).not.toContain('http.curloptResolve');
  });
});
