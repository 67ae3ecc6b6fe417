/**
 * Datetimes as Qdrant's range filter and datetime index read them (chrono's RFC 3339,
 * its relaxed `FromStr`, and the zoneless formats Qdrant adds, taken as UTC): a date, a
 * time with minutes and optional seconds and fraction, a zone (`Z`, `UTC`, `+02`,
 * `+0200`, `+02:00`) only after seconds; after a lowercase `t` a zone is required and
 * `+02` is not one. Like chrono, numbers may have one or two digits and whitespace may
 * precede each of them. Values are microseconds since the epoch, Qdrant's precision.
 */

const S = '\\s*';
const DATETIME = new RegExp(
  `^${S}([+-]?\\d{4})-${S}(\\d{1,2})-${S}(\\d{1,2})` +
    `(?:([Tt]|\\s)${S}(\\d{1,2}):${S}(\\d{1,2})` +
    `(?::${S}(\\d{1,2})(?:\\.(\\d+))?(?:${S}([Zz]|[Uu][Tt][Cc]|[+-]\\d{2}(?::?\\d{2})?))?)?)?$`,
);

/** Microseconds since the epoch of a datetime string, or undefined when it is not one. */
export function parseDatetime(text: string): number | undefined {
  const m = DATETIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, separator, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  // chrono reads a lowercase `t` only in RFC 3339 proper: with a zone, of hours and minutes.
  if (separator === 't' && (!zone || /^[+-]\d{2}$/.test(zone))) return undefined;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  // setUTCFullYear, unlike Date.UTC, does not read years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // A real parser refuses 31 February, which Date rolls over into March.
  if (date.getUTCDate() !== day) return undefined;
  const millis = date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
  let offsetMinutes = 0;
  if (zone && (zone[0] === '+' || zone[0] === '-')) {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2, 4) || '0');
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = sign * (hours * 60 + minutes);
  }
  const micros = Number((frac + '000000').slice(0, 6));
  return (millis - offsetMinutes * 60_000) * 1000 + micros;
}
