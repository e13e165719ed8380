/**
 * A bulk export (`$export`, docs/export.md) as the service keeps it: a job, what it was asked for
 * and who asked, and its parts, each a few patients that one worker run exports into files of its
 * own. Plain data: the store port keeps it, the kick-off makes it, the worker fills it in.
 */
import type { Id } from '../directory/model';

/** Where the export was asked for: the whole system, `Patient/$export`, or one study (`Group/<id>/$export`). */
export type ExportLevel = 'system' | 'patient' | 'group';

/**
 * `in-progress` until every part is done (`complete`), a part failed for good or the job made no
 * progress for too long (`failed`), or its owner cancelled it (`cancelled`: every request then
 * answers 404).
 */
export type JobStatus = 'in-progress' | 'complete' | 'failed' | 'cancelled';

/** Who started the job: only the same account (through the same backend client, if it used one) may see it. */
export interface ExportOwner {
  userId: Id;
  kind: 'patient' | 'practitioner';
  /** The client a client-credentials token was issued to (an API key or a backend service). */
  clientId?: string;
}

/** The owner as one key: the account, and the client for client-credentials tokens. */
export const ownerKey = (owner: ExportOwner): string => (owner.clientId === undefined ? `u${owner.userId}` : `u${owner.userId}/c${owner.clientId}`);

export interface ExportJob {
  /** Random, unguessable (128 bits, base64url). */
  id: string;
  owner: ExportOwner;
  level: ExportLevel;
  /** The study of a Group export. */
  groupId?: Id;
  /** The kick-off request as the client sent it (absolute URL on the service's origin; the manifest's `request`). */
  request: string;
  /** ISO instant of the kick-off: nothing written after it is exported. */
  transactionTime: string;
  /** ISO instant: only resources last updated after it. */
  since?: string;
  /** The resource types exported, in file order. */
  types: string[];
  /** `_typeFilter` queries per type (any one matching exports the resource), as query strings. */
  typeFilters: Array<[type: string, query: string]>;
  /** The study's requested codes (Group exports): Observations of other codes are not the study's. */
  codeIds?: Id[];
  status: JobStatus;
  partsTotal: number;
  partsDone: number;
  patientsTotal: number;
  patientsDone: number;
  /** ISO instant. */
  createdAt: string;
  /** Epoch ms of the last sign of progress (a part done, a running part's heartbeat). */
  progressAt: number;
  /** Epoch seconds after which the job and its files are gone. */
  expiresAt: number;
  /** Why a failed job failed (its status and message). */
  failure?: { status: number; message: string };
  /** Epoch ms of the last status request answered 202. */
  polledAt?: number;
}

/** One file a part wrote: an object of the job's (`<part>-<Type>-<n>.ndjson`). */
export interface ExportFile {
  name: string;
  type: string;
  /** Resources (lines) in it. */
  count: number;
  bytes: number;
  /** An `OperationOutcome` file of what could not be exported. */
  error?: true;
}

export interface ExportPart {
  jobId: string;
  /** 0 is the study and its data sources (Group, Device); 1 and on, patients. */
  index: number;
  patientIds: Id[];
  /** Part 0: the studies and data sources to export. */
  groupIds?: Id[];
  deviceIds?: Id[];
  done: boolean;
  files: ExportFile[];
}

/** What the worker is asked to do: fan a new job out into its parts, or run one part. */
export type ExportMessage = { kind: 'start'; jobId: string } | { kind: 'part'; jobId: string; part: number };

export const PART_FILE = /^(\d{1,6})-([A-Za-z]{1,64})-(\d{1,6})\.ndjson$/;

export const fileName = (part: number, type: string, n: number): string => `${part}-${type}-${n}.ndjson`;

/** The media type of every file (the Bulk Data format); `application/ndjson` and `ndjson` are accepted spellings. */
export const NDJSON = 'application/fhir+ndjson';
