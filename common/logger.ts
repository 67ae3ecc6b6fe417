/**
 * Structured logging: winston JSON lines on stdout, one logger per component.
 * Request-scoped children carry `request_id`. Secret values and API keys are
 * never passed to a logger; {@link redact} masks the fields that could hold them.
 */
import winston from 'winston';

/** A component logger. */
export type Logger = winston.Logger;

const SECRET_FIELDS = /^(authorization|api[_-]?key|token|password|secret|value)$/i;

/** Replaces values of secret-looking fields with `[redacted]`, recursively. */
export function redact(value: unknown): unknown {
  if (value instanceof Error) {
    // Error fields are not enumerable; keep what explains the failure.
    const code = (value as { code?: unknown }).code;
    return {
      name: value.name,
      message: value.message,
      ...(code === undefined ? {} : { code }),
      stack: value.stack,
    };
  }
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.test(k) ? '[redacted]' : redact(v)]),
    );
  }
  return value;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_FIELDS.test(key)) info[key] = '[redacted]';
    else if (key !== 'message' && key !== 'level') info[key] = redact(info[key]);
  }
  return info;
});

/** Creates the logger of one component (`apiserver`, `operator`, `engine`, ...). */
export function createLogger(
  component: string,
  level = process.env.SVC_LOG_LEVEL ?? 'info',
): Logger {
  // winston runs every format before its transports compare levels: drop
  // disabled levels first, so a debug line costs nothing where it is not wanted.
  const enabledOnly = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));
  const logger = winston.createLogger({
    level,
    defaultMeta: { component },
    format: winston.format.combine(
      enabledOnly(),
      redactFormat(),
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [new winston.transports.Console({ silent: level === 'silent' })],
  });
  return logger;
}
