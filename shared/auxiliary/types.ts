import type { Caller } from '../auth/caller';
import type { OperationOutcome } from '../fhir/outcome';

export interface AuxCreateRequest {
  caller: Caller;
  type: string;                 // the resource type (from the URL or the Bundle entry)
  resource: unknown;            // the submitted JSON
  sourceHeader?: string;        // value of X-SVC-FHIR-Source-ID, if any
  origin: string;               // for the Location URL
}
export type AuxCreateResult =
  /** `lastModified` is the stored instant (`meta.lastUpdated`), as every create result carries it; HTTP headers format it. */
  | { ok: true; status: 201 | 200; resource: Record<string, unknown>; location: string; etag: string; lastModified: string; patientId: number }
  | { ok: false; status: number; outcome: OperationOutcome };
export type CreateAuxiliaryResource = (req: AuxCreateRequest) => Promise<AuxCreateResult>;
