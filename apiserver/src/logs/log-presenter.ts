/** Shapes stored log lines and pages into the contract's LogEntry records and the page envelope. */
import type { LogEntryValue, LogPageValue } from '../control-plane/routes/logs/schema.js';
import type { LogItem } from './log-chunks.js';
import type { LogPage } from './log-store.js';

/** The LogEntry record of a stored line: exactly id, timestamp, stream, level, message. */
export function presentLogEntry(doc: LogItem): LogEntryValue {
  return {
    id: doc.id,
    timestamp: doc.timestamp.toISOString(),
    stream: doc.stream,
    level: doc.level,
    message: doc.message,
  };
}

/** The page envelope: items oldest first, then the cursors around them. */
export function presentLogPage(page: LogPage): LogPageValue {
  return {
    items: page.items.map(presentLogEntry),
    next_after_id: page.nextAfterId,
    next_before_id: page.nextBeforeId,
    has_more: page.hasMore,
  };
}
