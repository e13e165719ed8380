/**
 * The summary's resources as R4, held to the R4 definitions the R4 import compiled
 * (shared/r4-import): the R4 import's converter finds nothing in them R4 does not define or shapes
 * otherwise, loses nothing, and gives back the R5 originals, which pass the R5 validator.
 */
import { describe, expect, it } from 'vitest';
import { hasErrors, validateResource } from '../../../shared/fhir/validation';
import { cgmProfileOf, r4Of } from '../../../shared/portal/cgm-r4';
import { isAgpProfile, reportEntries } from '../../../shared/portal/cgm-view';
import type { Resource } from '../../../shared/portal/records';
import { convertR4 } from '../../../shared/r4-import/convert';
import { lossReport } from '../../../shared/r4-import/loss';
import { reportBundle, variedTrace } from './cgm-reports';

const withoutMeta = ({ meta: _meta, ...rest }: Resource) => rest;

/** What the R4 import's converter says of an R4 resource: the R5 resource, what it skipped and what it lost. */
function throughR4Import(r4: Resource) {
  const conversion = convertR4(r4)!;
  return { r5: conversion.resource as Resource, skips: [...conversion.skips.keys()], losses: lossReport(r4, conversion) };
}

describe('the CGM summary as R4', async () => {
  const full = reportEntries(await reportBundle(variedTrace(14))).map((e) => e.resource);
  const empty = reportEntries(await reportBundle([])).map((e) => e.resource);
  const sent = [...full, ...empty].filter((r) => !isAgpProfile(r));

  it('converts every resource of the summary, with readings or without, leaving nothing out', () => {
    expect(sent.map((r) => r.resourceType)).toEqual([...Array(7).fill('Observation'), 'DiagnosticReport', ...Array(7).fill('Observation'), 'DiagnosticReport']);
    for (const resource of sent) expect(r4Of(resource).dropped).toEqual([]);
  });

  it('is R4 to the R4 import: nothing skipped or lost, and back in R5 the very resource sent, valid', async () => {
    for (const resource of sent) {
      const { resource: r4 } = r4Of(resource);
      const back = throughR4Import(r4);
      expect(back.skips, JSON.stringify(back.skips)).toEqual([]);
      expect(back.losses).toEqual([]);
      expect(withoutMeta(back.r5)).toEqual(resource);
      const issues = await validateResource(back.r5);
      expect(hasErrors(issues), JSON.stringify(issues)).toBe(false);
    }
  });

  it('names the guide’s profile of each resource', () => {
    const profiles = full.filter((r) => !isAgpProfile(r)).map((r) => (r4Of(r).resource.meta as { profile: string[] }).profile);
    expect(profiles.map((p) => p.map((url) => url.replace('http://hl7.org/fhir/uv/cgm/StructureDefinition/', '')))).toEqual([
      ['cgm-summary'],
      ['cgm-summary-mean-glucose-mass-per-volume'],
      ['cgm-summary-times-in-ranges'],
      ['cgm-summary-gmi'],
      ['cgm-summary-coefficient-of-variation'],
      ['cgm-summary-days-of-wear'],
      ['cgm-summary-sensor-active-percentage'],
      ['cgm-summary-pdf'],
    ]);
    expect(cgmProfileOf(full.find(isAgpProfile)!)).toBeUndefined();
  });

  it('leaves out, and names, what R4 lacks or shapes otherwise', () => {
    const profile = full.find(isAgpProfile)!;
    const r5Only: Resource = { ...full[1]!, triggeredBy: [{ observation: { reference: 'Observation/1' }, type: 'reflex' }], referenceRange: [{ text: 'x', normalValue: { text: 'normal' } }] };
    expect(r4Of(r5Only).dropped).toEqual(['Observation.triggeredBy', 'Observation.referenceRange.normalValue']);
    expect(r4Of(profile).dropped).toEqual(Array(6).fill('Observation.component.valueSampledData'));
    const sized = r4Of({ ...full.at(-1)!, presentedForm: [{ contentType: 'application/pdf', size: '1024', pages: 1 }] });
    expect(sized.resource.presentedForm).toEqual([{ contentType: 'application/pdf', size: 1024 }]);
    expect(sized.dropped).toEqual(['Attachment.pages']);
    expect(() => r4Of({ resourceType: 'Patient' })).toThrow(RangeError);
  });
});
