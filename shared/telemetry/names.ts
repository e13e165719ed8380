/**
 * The names an operator sees: the CloudWatch namespace and metric names the functions emit (as
 * Embedded Metric Format lines through Powertools), and the log messages the saved queries filter
 * on. The stack's alarms, dashboard and queries read them from here, so they cannot drift from
 * what the code writes.
 *
 * Every metric carries the dimension `service` = the endpoint family (`fhir`, `fhir-import`, `api`,
 * `oauth`, and the export worker's `export-worker`); the metrics marked "by status" are also emitted with a second dimension set
 * `[service, status]`.
 */
export const METRICS_NAMESPACE = 'ClinicalDataExchange';

/** The export worker's `service` (its function, log lines and metrics): not an endpoint family. */
export const EXPORT_WORKER = 'export-worker';

export const METRIC = {
  /** Mobile-health readings stored (201) by a batch upload or a single create. */
  readingsStored: 'ReadingsStored',
  /** Readings already stored, answered 200 with their existing row (a device's retry). */
  readingsDuplicate: 'ReadingsDuplicate',
  /** Upload entries (batch or single create) answered with an error status; by status. */
  uploadEntriesRefused: 'UploadEntriesRefused',
  /** Auxiliary resources created, updated, patched or deleted. */
  auxiliaryWrites: 'AuxiliaryWrites',
  /** R4 import entries stored, stored with loss, refused; R4 fields dropped by the conversion. */
  importEntriesCreated: 'ImportEntriesCreated',
  importEntriesWithLoss: 'ImportEntriesWithLoss',
  importEntriesFailed: 'ImportEntriesFailed',
  importFieldsDropped: 'ImportFieldsDropped',
  /** Requests refused for a missing, invalid, expired or revoked credential (401). */
  authenticationFailures: 'AuthenticationFailures',
  /** Searchset pages served, and the rows (entries) they returned. */
  searchPages: 'SearchPages',
  searchRows: 'SearchRows',
  /** Bulk export: parts recorded done; jobs the sweep failed for lack of progress (alarmed); messages whose work failed. */
  exportPartsDone: 'ExportPartsDone',
  exportJobsStuck: 'ExportJobsStuck',
  exportWorkFailures: 'ExportWorkFailures',
  /** `/mcp` requests answered 429 for their client's rate limit; requests let through because the limit's store failed (alarmed). */
  mcpRateLimited: 'McpRateLimited',
  mcpRateLimitUnavailable: 'McpRateLimitUnavailable',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** The `message` of the log lines the saved queries read. */
export const LOG_MESSAGE = {
  /** One per request: method, path, route, status, durationMs. */
  request: 'request',
  /** One per read or write of patient data: see `audit.ts`. */
  audit: 'audit',
} as const;
