/**
 * THE FHIR rendering of a CGM summary (operation.ts's typed result): a `collection` Bundle of the
 * summary panel, its members and the ambulatory glucose profile, as shared/cgm/fhir.ts renders them
 * in the shapes of HL7's CGM guide, their references the entries' `fullUrl`s. The operation's one
 * output is this Bundle, so it is the answer's body itself (FHIR's rule for an operation whose only
 * output is one resource named `return`).
 */
import { cgmEntries, cgmResources } from '../../cgm/fhir';
import type { CgmResult } from './operation';

export function cgmBundle(result: CgmResult, now = Date.now()): Record<string, unknown> {
  const resources = cgmResources(result.summary, { subject: `Patient/${result.patientId}`, unit: result.unit, periodClock: result.clock });
  return {
    resourceType: 'Bundle',
    type: 'collection',
    timestamp: new Date(now).toISOString(),
    entry: cgmEntries(resources).map(({ fullUrl, resource }) => ({ fullUrl, resource })),
  };
}
