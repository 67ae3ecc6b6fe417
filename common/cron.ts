/** Next occurrences of a 5-field cron expression, always in UTC. */
import { CronExpressionParser } from 'cron-parser';

/** The first time `expression` fires strictly after `from`. */
export function nextRun(expression: string, from: Date): Date {
  return CronExpressionParser.parse(expression, { currentDate: from, tz: 'UTC' }).next().toDate();
}
