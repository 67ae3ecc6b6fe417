/**
 * Datetimes as Qdrant's range filter and datetime index read them: RFC 3339, or the same
 * without a zone (taken as UTC), with a space instead of `T`, or a date alone. Values are
 * microseconds since the epoch, Qdrant's precision.
 */

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(?:\s*([Zz]|[+-]\d{2}(?::?\d{2})?))?$/;

/** Microseconds since the epoch of a datetime string, or undefined when it is not one. */
export function parseDatetime(text: string): number | undefined {
  const m = DATETIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  const millis = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  // Date.UTC rolls 31 February over into March; a real parser refuses it.
  if (new Date(millis).getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const micros = Number((frac + '000000').slice(0, 6));
  return (millis - offsetMinutes * 60_000) * 1000 + micros;
}
