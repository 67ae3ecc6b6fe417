import { describe, expect, it } from '@jest/globals';
import { shortestFloat32 } from './present.js';

/** The definition: the fewest digits, 1 to 8, that read back as `x`; `x` itself when none do. */
function oneByOne(x: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(x.toPrecision(digits));
    if (Math.fround(candidate) === x) return candidate;
  }
  return x;
}

function float32OfBits(bits: number): number {
  const word = new Uint32Array([bits >>> 0]);
  return new Float32Array(word.buffer)[0]!;
}

describe('shortestFloat32', () => {
  it('prints the few digits a float32 needs', () => {
    expect(shortestFloat32(Math.fround(0.1))).toBe(0.1);
    expect(shortestFloat32(Math.fround(0.87654321))).toBe(0.8765432);
    expect(shortestFloat32(Math.fround(-123.456))).toBe(-123.456);
    expect(String(shortestFloat32(Math.fround(1 / 3)))).toBe('0.33333334');
  });

  it('leaves a number that is no float32 as it is', () => {
    expect(shortestFloat32(0.1)).toBe(0.1);
    expect(shortestFloat32(1 / 3)).toBe(1 / 3);
    expect(shortestFloat32(NaN)).toBeNaN();
  });

  it('answers as trying every count of digits in turn, for every kind of float32', () => {
    const special = [
      0,
      -0,
      Infinity,
      -Infinity,
      1,
      -1,
      2 ** -149,
      2 ** -126,
      3.4028234663852886e38,
    ];
    for (let e = -149; e <= 127; e++) special.push(2 ** e, -(2 ** e), Math.fround(2 ** e * 1.5));
    for (const x of special) expect(Object.is(shortestFloat32(x), oneByOne(x))).toBe(true);
    // Random bit patterns cover every exponent; uniform scores cover what searches print.
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    let differing = 0;
    for (let i = 0; i < 200_000; i++) {
      const x = i % 2 === 0 ? float32OfBits(next()) : Math.fround(next() / 2 ** 31 - 1);
      if (!Object.is(shortestFloat32(x), oneByOne(x))) differing++;
    }
    expect(differing).toBe(0);
  });
});
