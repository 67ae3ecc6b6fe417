import { describe, expect, it } from '@jest/globals';
import { colourAllowed } from './output.js';

describe('colourAllowed', () => {
  const terminal = { isTTY: true };

  it('colours a terminal when neither --no-color nor NO_COLOR says otherwise', () => {
    expect(colourAllowed(terminal, undefined, {})).toBe(true);
    expect(colourAllowed(terminal, true, {})).toBe(true);
  });

  it('treats an empty NO_COLOR as unset and any other value as no colour (no-color.org)', () => {
    expect(colourAllowed(terminal, undefined, { NO_COLOR: '' })).toBe(true);
    expect(colourAllowed(terminal, undefined, { NO_COLOR: '1' })).toBe(false);
    expect(colourAllowed(terminal, true, { NO_COLOR: 'false' })).toBe(false);
  });

  it('never colours with --no-color or when the stream is not a terminal', () => {
    expect(colourAllowed(terminal, false, {})).toBe(false);
    expect(colourAllowed({ isTTY: false }, undefined, {})).toBe(false);
    expect(colourAllowed({}, undefined, {})).toBe(false);
  });
});
