// Cron schedules through croner: five fields (minute precision; a seconds field would let one
// automation start a job every second) in an IANA time zone.
import { Cron } from 'croner';

/** The parsed schedule, or the reason it is not one. */
export function parseSchedule(cron: string, timezone: string): { schedule: Cron } | { problem: string } {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) {
    return {
      problem: `must have 5 fields (minute hour day-of-month month day-of-week), not ${fields.length}`,
    };
  }
  try {
    const schedule = new Cron(fields.join(' '), { timezone, paused: true });
    // An unknown time zone is only noticed when a time is computed.
    schedule.nextRun(new Date());
    return { schedule };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/** The first due time strictly after `after`, or null when the expression never fires again. */
export function nextDueTime(cron: string, timezone: string, after: Date): Date | null {
  const parsed = parseSchedule(cron, timezone);
  if ('problem' in parsed) return null;
  return parsed.schedule.nextRun(after);
}
