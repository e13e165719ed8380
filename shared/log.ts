/** JSON-lines logs: one object a line on stdout, which CloudWatch and `npm start` both read as is. */
import { pino, type Logger } from 'pino';
import { config } from './config';

export type { Logger };

let root: Logger | undefined;

export function rootLogger(): Logger {
  root ??= pino(
    {
      level: config().logLevel,
      base: undefined,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Command-line tools whose stdout is their answer (`invoke`, `token`) log to stderr.
    pino.destination({ fd: process.env.LOG_TO_STDERR ? 2 : 1, sync: true }),
  );
  return root;
}
