/**
 * The rules for one log line, kept pure so they are tested without a
 * database: the stream and level vocabularies of the contract, the level a
 * line gets when its sender does not name one, and the per-line size cap.
 */

/** The contract's log streams. */
export const LOG_STREAMS = ['stdout', 'stderr', 'system'] as const;
/** One of {@link LOG_STREAMS}. */
export type LogStream = (typeof LOG_STREAMS)[number];

/** The contract's log levels. */
export const LOG_LEVELS = ['INFO', 'WARN', 'ERROR', 'DEBUG', 'SYSTEM'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Largest stored message, in UTF-8 bytes (16 KiB). A longer line is cut to fit,
 * marker included: one runaway line (a minified bundle, a base64 blob) must not
 * crowd out the rest of an agent's log or blow up a page of 1000 entries.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024;

/** Appended to a message that was cut. */
export const TRUNCATION_MARKER = '…[truncated]';

/**
 * `message` unchanged when it fits in `maxBytes` UTF-8 bytes; otherwise its
 * longest prefix that fits together with {@link TRUNCATION_MARKER}, cut on a
 * character boundary (never inside a surrogate pair), then the marker.
 */
export function truncateMessage(message: string, maxBytes = MAX_MESSAGE_BYTES): string {
  if (Buffer.byteLength(message, 'utf8') <= maxBytes) return message;
  const budget = Math.max(0, maxBytes - Buffer.byteLength(TRUNCATION_MARKER, 'utf8'));
  let bytes = 0;
  let end = 0;
  for (const char of message) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > budget) break;
    bytes += size;
    end += char.length;
  }
  return message.slice(0, end) + TRUNCATION_MARKER;
}

const LEVEL_WORDS: Record<string, LogLevel> = {
  DEBUG: 'DEBUG',
  INFO: 'INFO',
  WARN: 'WARN',
  WARNING: 'WARN',
  ERROR: 'ERROR',
  // Python logging's two levels above ERROR; the contract has no separate one.
  CRITICAL: 'ERROR',
  FATAL: 'ERROR',
};
const WORDS = Object.keys(LEVEL_WORDS).join('|');
/**
 * A level word at the start of a line (after optional whitespace), in one of
 * the shapes loggers write: `[ERROR] ...` or `<warn> ...` in brackets,
 * `WARNING:root:...` (Python logging) or `error: ...` before a colon, in any
 * case; or `INFO  ...` as a bare upper-case word before whitespace or the end.
 * A capitalised word in prose ("Error handling enabled") is not a level.
 */
const LEVEL_PREFIX = new RegExp(
  `^\\s*(?:[[<](${WORDS})[\\]>]|(${WORDS}):|(${WORDS})(?=\\s|$))`,
  'i',
);

/** The level named at the start of `message`, or null when it names none. */
export function levelWord(message: string): Exclude<LogLevel, 'SYSTEM'> | null {
  const match = LEVEL_PREFIX.exec(message);
  if (!match) return null;
  const [, bracketed, colon, bare] = match;
  if (bare !== undefined && bare !== bare.toUpperCase()) return null;
  const word = (bracketed ?? colon ?? bare ?? '').toUpperCase();
  return (LEVEL_WORDS[word] as Exclude<LogLevel, 'SYSTEM'> | undefined) ?? null;
}

/**
 * The level of a line whose sender named none. System events are SYSTEM.
 * Otherwise a level word at the start of the line wins (uvicorn writes
 * `INFO:     Started server` to stderr, Python logging `WARNING:root:...`);
 * failing that, stdout lines are INFO and stderr lines ERROR.
 */
export function inferLevel(stream: LogStream, message: string): LogLevel {
  if (stream === 'system') return 'SYSTEM';
  return levelWord(message) ?? (stream === 'stderr' ? 'ERROR' : 'INFO');
}
