/**
 * JSON-lines logs through Powertools Logger: one object a line, with the Lambda context (function,
 * cold start, X-Ray trace id) and the request's correlation id, which CloudWatch Logs Insights and
 * `npm start` both read as is. One logger per endpoint family (its `service`), one for work outside
 * a request (`service: cdx`).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogItem } from '@aws-lambda-powertools/logger';
import { config } from '../config';

export type { Logger };

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'critical', 'silent']);

/** Command-line tools whose stdout is their answer (`invoke`, `token`) log to stderr instead. */
class ServiceLogger extends Logger {
  protected override printLog(logLevel: number, log: LogItem): void {
    if (!process.env.LOG_TO_STDERR) return super.printLog(logLevel, log);
    process.stderr.write(`${JSON.stringify(log.getAttributes(), this.getJsonReplacer())}\n`);
  }
}

const loggers = new Map<string, Logger>();

/** The logger of a service (an endpoint family, or `cdx` for the process), made once. */
export function loggerFor(service: string): Logger {
  let logger = loggers.get(service);
  if (!logger) {
    const level = config().logLevel.toLowerCase();
    logger = new ServiceLogger({ serviceName: service, logLevel: (LEVELS.has(level) ? level : 'info') as 'info' });
    loggers.set(service, logger);
  }
  return logger;
}

/** The logger of work outside any one family's request (the store, the local runtime). */
export function rootLogger(): Logger {
  return loggerFor('cdx');
}

/** Forget the loggers (a test that changes LOG_LEVEL or LOG_TO_STDERR between uses). */
export function resetLoggers(): void {
  loggers.clear();
}
