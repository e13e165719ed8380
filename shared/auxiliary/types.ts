import type { Caller } from '../auth/caller';
import type { assertCanUseFhirSource } from '../auth/scope';
import type { OperationOutcome } from '../fhir/outcome';
import type { StoredResource } from './submission';

/** A FHIR Source this request has checked the caller may write through, with its patient (`assertCanUseFhirSource`). */
export type CheckedSource = Awaited<ReturnType<typeof assertCanUseFhirSource>>;

export interface AuxiliaryCreateRequest {
  caller: Caller;
  type: string;                 // the resource type (from the URL or the Bundle entry)
  resource: unknown;            // the submitted JSON
  sourceHeader?: string;        // value of X-SVC-FHIR-Source-ID, if any
  /** The source `sourceHeader` names, when the request checked it once for all its entries (the R4 import). */
  checkedSource?: CheckedSource;
  origin: string;               // for the references the search index counts as local
}
export type AuxiliaryCreateResult =
  /** The stored resource (its `meta` names the version written); the answer is shaped from it. */
  | { ok: true; status: 201 | 200; resource: StoredResource; patientId: number }
  | { ok: false; status: number; outcome: OperationOutcome };
export type CreateAuxiliaryResource = (req: AuxiliaryCreateRequest) => Promise<AuxiliaryCreateResult>;
