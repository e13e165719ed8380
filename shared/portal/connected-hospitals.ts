/**
 * The hospitals a patient has already connected (docs/portal.md#sending-to-the-hospital): the FHIR
 * Sources the portal registered when it imported their record, as `GET /api/v1/fhir_sources` lists
 * them (newest first), one per FHIR base URL, named as the patient chose the hospital in the picker.
 * The glucose page offers them as where to send. Pure functions; the page writes the names and URLs
 * as text only, never as markup.
 */
import { isObject } from '../json';
import { issOrigin } from './config';

export interface ConnectedHospital {
  /** The hospital's name as the patient chose it; undefined when the source does not carry one. */
  name: string | undefined;
  fhirBaseUrl: string;
}

/** The longest label `/api/v1/fhir_sources` takes. */
const MAX_LABEL = 200;
/** Hospitals offered at most (a patient connects a few; the list is newest first). */
export const MAX_CONNECTED = 10;

/** The label of a source whose hospital has no name (one configured hospital, or a source registered before labels named it). */
const unnamedLabel = (fhirBaseUrl: string) => `Hospital records (${fhirBaseUrl})`;

/**
 * The label the import registers its FHIR Source with: the hospital's name as the patient chose
 * it, in the one line without `<` or `>` that labels allow, else `Hospital records (<base URL>)`.
 */
export function sourceLabel(fhirBaseUrl: string, hospitalName: string | undefined): string {
  const name = (hospitalName ?? '')
    .replace(/[\p{Cc}<>]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_LABEL)
    .trimEnd();
  return name || unnamedLabel(fhirBaseUrl);
}

/** Two FHIR base URLs name the same server when they differ only by trailing slashes. */
export const sameServer = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * The connected hospitals from a `/api/v1/fhir_sources` list body: each http(s) base URL once (the
 * newest source's name for it), at most MAX_CONNECTED; anything else in the body is ignored.
 */
export function connectedHospitals(list: unknown): ConnectedHospital[] {
  const rows = isObject(list) && Array.isArray(list.results) ? list.results.filter(isObject) : [];
  const hospitals: ConnectedHospital[] = [];
  for (const row of rows) {
    const fhirBaseUrl = typeof row.fhirBaseUrl === 'string' ? row.fhirBaseUrl.trim() : '';
    if (!issOrigin(fhirBaseUrl) || hospitals.some((h) => sameServer(h.fhirBaseUrl, fhirBaseUrl))) continue;
    const label = typeof row.label === 'string' ? row.label.trim() : '';
    hospitals.push({ name: label && label !== unnamedLabel(fhirBaseUrl) ? label : undefined, fhirBaseUrl });
    if (hospitals.length === MAX_CONNECTED) break;
  }
  return hospitals;
}
