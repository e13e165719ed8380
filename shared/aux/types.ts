/**
 * The auxiliary store's create, as the native upload paths call it (the batch upload, the single
 * create, the R4 import) for every resource that is not a mobile-health Observation. The
 * auxiliary-store module implements `CreateAuxiliaryResource` in `shared/aux/create.ts`.
 */
import type { Caller } from '../auth/caller';
import type { OperationOutcome } from '../fhir/outcome';

export interface AuxCreateRequest {
  caller: Caller;
  /** The resource type (from the URL or the Bundle entry). */
  type: string;
  /** The submitted JSON. */
  resource: unknown;
  /** Value of X-SVC-FHIR-Source-ID, if any. */
  sourceHeader?: string;
  /** For the Location URL. */
  origin: string;
}

export type AuxCreateResult =
  | { ok: true; status: 201 | 200; resource: Record<string, unknown>; location: string; etag: string; lastModified: string }
  | { ok: false; status: number; outcome: OperationOutcome };

export type CreateAuxiliaryResource = (req: AuxCreateRequest) => Promise<AuxCreateResult>;
