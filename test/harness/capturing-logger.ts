/**
 * A logger whose every line, at debug, is kept in memory: the secret sweeps
 * scan them for values that must never be logged.
 */
import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from '../../common/logger.js';

/** A logger of `component` at debug that appends each line it writes to `lines`. */
export function capturingLogger(component: string, lines: string[]): Logger {
  const log = createLogger(component, 'debug');
  log.clear();
  log.add(
    new winston.transports.Stream({
      stream: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    }),
  );
  return log;
}
