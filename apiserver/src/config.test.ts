import { describe, expect, it } from '@jest/globals';
import { generateSecret } from '../../common/secrets.js';
import { loadConfig } from './config.js';

describe('loadConfig', () => {
  const secrets = { SVC_INTERNAL_SECRET: generateSecret(), SVC_ENGINE_API_KEY: generateSecret() };

  it('refuses the old built-in internal secret, or none', () => {
    expect(() =>
      loadConfig({ ...secrets, SVC_INTERNAL_SECRET: 'dev-only-internal-secret' }),
    ).toThrow(/^SVC_INTERNAL_SECRET contains the well-known value "dev-only-internal-secret"/);
    expect(() => loadConfig({ SVC_ENGINE_API_KEY: secrets.SVC_ENGINE_API_KEY })).toThrow(
      /^SVC_INTERNAL_SECRET is not set/,
    );
  });

  it('refuses to start without the engine key', () => {
    expect(() => loadConfig({ SVC_INTERNAL_SECRET: secrets.SVC_INTERNAL_SECRET })).toThrow(
      /^SVC_ENGINE_API_KEY is not set/,
    );
  });

  it('reads both secrets as given', () => {
    expect(loadConfig(secrets)).toMatchObject({
      internalSecret: secrets.SVC_INTERNAL_SECRET,
      engineApiKey: secrets.SVC_ENGINE_API_KEY,
    });
  });

  it("reads the dashboard's origins as a list and its vector plane URL, unset by default", () => {
    expect(loadConfig(secrets)).toMatchObject({
      dashboardOrigins: null,
      dashboardVectorsUrl: undefined,
    });
    expect(
      loadConfig({
        ...secrets,
        SVC_DASHBOARD_ORIGINS: 'https://api.example.com, http://localhost:8000,',
        SVC_DASHBOARD_VECTORS_URL: 'https://vectors.example.com',
      }),
    ).toMatchObject({
      dashboardOrigins: ['https://api.example.com', 'http://localhost:8000'],
      dashboardVectorsUrl: 'https://vectors.example.com',
    });
  });

  it('reads the code-host settings, off and unset by default', () => {
    expect(loadConfig(secrets).codehost).toEqual({
      publicApiUrl: undefined,
      webhookPerMinute: 120,
      allowLoopbackHttp: false,
      allowPrivateHosts: false,
    });
    expect(
      loadConfig({
        ...secrets,
        SVC_PUBLIC_API_URL: 'https://api.example.com',
        SVC_CODEHOST_WEBHOOK_PER_MINUTE: '30',
        SVC_CODEHOST_ALLOW_LOOPBACK_HTTP: 'true',
        SVC_CODEHOST_ALLOW_PRIVATE_HOSTS: 'true',
      }).codehost,
    ).toEqual({
      publicApiUrl: 'https://api.example.com',
      webhookPerMinute: 30,
      allowLoopbackHttp: true,
      allowPrivateHosts: true,
    });
    expect(() => loadConfig({ ...secrets, SVC_CODEHOST_WEBHOOK_PER_MINUTE: '0' })).toThrow(
      /SVC_CODEHOST_WEBHOOK_PER_MINUTE/,
    );
  });

  it('offers one region, local, on its own KUBECONFIG and SVC_ENGINE_URL by default', () => {
    const config = loadConfig({ ...secrets, KUBECONFIG: '/k/home', SVC_ENGINE_URL: 'http://e:1' });
    expect(config).toMatchObject({
      regions: ['local'],
      kubeconfig: '/k/home',
      engineUrl: 'http://e:1',
    });
    expect(config.registry.home.name).toBe('local');
  });

  it("takes the home region's API and engine from the region registry", () => {
    const config = loadConfig({
      ...secrets,
      SVC_REGIONS_JSON: JSON.stringify([
        { name: 'a', kubeconfig: '/k/a', engineUrl: 'http://a:1' },
        { name: 'b', kubeconfig: '/k/b', engineUrl: 'http://b:1' },
      ]),
    });
    expect(config).toMatchObject({
      regions: ['a', 'b'],
      kubeconfig: '/k/a',
      engineUrl: 'http://a:1',
    });
  });
});
