import { describe, expect, it } from '@jest/globals';
import { ANNOTATIONS, secretDataKey } from '../../../crds/src/index.js';
import { secretEnvironment } from './secret-environment.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('secretEnvironment', () => {
  it('decodes each data key, a derived one under the key the Secret names for it', () => {
    const long = `L${'K'.repeat(254)}`;
    const env = secretEnvironment({
      metadata: {
        annotations: {
          [ANNOTATIONS.secretEnvNames]: JSON.stringify({ [secretDataKey(long)]: long }),
        },
      },
      data: { API_TOKEN: b64('short'), [secretDataKey(long)]: b64('long one') },
    });
    expect(env).toEqual({ API_TOKEN: 'short', [long]: 'long one' });
  });

  it('leaves out a derived data key the Secret does not name, and reads a Secret without data', () => {
    const long = `L${'K'.repeat(254)}`;
    expect(secretEnvironment({ data: { [secretDataKey(long)]: b64('orphan') } })).toEqual({});
    expect(
      secretEnvironment({ metadata: { annotations: { [ANNOTATIONS.secretEnvNames]: '{' } } }),
    ).toEqual({});
  });
});
