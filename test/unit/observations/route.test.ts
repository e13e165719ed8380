import { describe, expect, it } from 'vitest';
import { parsePrefer } from '../../../shared/fhir/prefer';
import { statusOf } from '../../support/errors';
import { routeObservation } from '../../../shared/observations/route';
import { observationPositions } from '../../../shared/observations/search/cursor';
import { DEFAULT_ORDER, parseNativeQuery } from '../../../shared/observations/search/query';
import { parseBatchBundle } from '../../../shared/observations/create/bundle';
import { config, resetConfig } from '../../../shared/config';

const status = statusOf;

describe('routing an Observation', () => {
  it('native for an Open mHealth or IEEE 1752 coding, auxiliary for anything else', () => {
    expect(routeObservation({ code: { coding: [{ system: 'https://w3id.org/openmhealth', code: 'omh:heart-rate:2.0' }] } })).toBe('native');
    expect(routeObservation({ code: { coding: [{ system: 'http://loinc.org', code: '1' }, { system: 'https://w3id.org/ieee1752', code: 'ieee:sleep-episode:1.0' }] } })).toBe('native');
    expect(routeObservation({ code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] } })).toBe('auxiliary');
    expect(routeObservation({ code: { text: 'heart rate' } })).toBe('auxiliary');
    for (const junk of [null, 'x', [], { code: { coding: 'x' } }]) expect(routeObservation(junk)).toBe('auxiliary');
  });

  it('native for a FHIR sensor reading (glucose in interstitial fluid), auxiliary for a glucose in blood', () => {
    expect(routeObservation({ code: { coding: [{ system: 'http://loinc.org', code: '99504-3' }] } })).toBe('native');
    expect(routeObservation({ code: { coding: [{ system: 'http://snomed.info/sct', code: '1' }, { system: 'http://loinc.org', code: '105272-9' }] } })).toBe('native');
    for (const code of ['2339-0', '41653-7', '14743-9', '97507-8', '105273-7']) expect(routeObservation({ code: { coding: [{ system: 'http://loinc.org', code }] } }), code).toBe('auxiliary');
    expect(routeObservation({ code: { coding: [{ system: 'http://example.org/not-loinc', code: '99504-3' }] } })).toBe('auxiliary');
  });
});

describe('a batch Bundle', () => {
  const entry = (request?: unknown, resource: unknown = { resourceType: 'Observation' }) => ({ ...(request ? { request } : {}), ...(resource ? { resource } : {}) });

  it('is refused as a whole when it is not a batch Bundle or has too many entries', () => {
    expect(status(() => parseBatchBundle({ resourceType: 'Patient' }))).toBe(400);
    expect(status(() => parseBatchBundle({ resourceType: 'Bundle', type: 'searchset' }))).toBe(400);
    expect(status(() => parseBatchBundle({ resourceType: 'Bundle', type: 'batch', entry: 'x' }))).toBe(400);
    const max = config().maxBundleEntries;
    expect(max).toBe(1000);
    expect(status(() => parseBatchBundle({ resourceType: 'Bundle', type: 'batch', entry: Array(max + 1).fill(entry()) }))).toBe(413);
    expect(parseBatchBundle({ resourceType: 'Bundle', type: 'batch', entry: Array(max).fill(entry()) })).toHaveLength(max);
  });

  it('takes its entry limit from MAX_BUNDLE_ENTRIES', () => {
    process.env.MAX_BUNDLE_ENTRIES = '3';
    resetConfig();
    try {
      expect(status(() => parseBatchBundle({ resourceType: 'Bundle', type: 'batch', entry: Array(4).fill(entry()) }))).toBe(413);
      expect(parseBatchBundle({ resourceType: 'Bundle', type: 'batch', entry: Array(3).fill(entry()) })).toHaveLength(3);
    } finally {
      delete process.env.MAX_BUNDLE_ENTRIES;
      resetConfig();
    }
  });

  it('fails entries one by one', () => {
    const parsed = parseBatchBundle({
      resourceType: 'Bundle',
      type: 'batch',
      entry: [
        entry({ method: 'POST', url: 'Observation' }),
        entry(),
        entry({ method: 'POST', url: 'https://host/FHIR/R5/Observation?x=1' }),
        entry({ method: 'PUT', url: 'Observation/1' }),
        entry({ method: 'POST', url: 'Patient' }),
        entry({ method: 'POST', url: 'Observation' }, null),
        entry({ method: 'POST', url: 'Condition' }, { resourceType: 'Condition' }),
        7,
      ],
    });
    expect(parsed.map((p) => (p.ok ? p.type : p.status))).toEqual(['Observation', 'Observation', 'Observation', 400, 400, 400, 'Condition', 400]);
  });

  it("keeps each entry's fullUrl, which other entries may refer to it by", () => {
    const parsed = parseBatchBundle({ resourceType: 'Bundle', type: 'batch', entry: [{ fullUrl: 'urn:uuid:1', resource: { resourceType: 'Device' } }, { fullUrl: 7, resource: { resourceType: 'Device' } }] });
    expect(parsed.map((p) => p.ok && p.fullUrl)).toEqual(['urn:uuid:1', undefined]);
  });
});

describe('search parameters', () => {
  it("page size: the kernel's reading (default 20, at most 1000, 0 counts only, a malformed value ignored and reported)", () => {
    const read = (count: string) => parseNativeQuery(new URLSearchParams(`_count=${count}`));
    expect(['-3', 'x', '2.5', '7', '1000', '5000'].map((c) => read(c).count)).toEqual([20, 20, 20, 7, 1000, 1000]);
    expect(read('0').summaryCount).toBe(true);
    expect(read('x').ignored.map((u) => u.name)).toEqual(['_count']);
    expect(read('7').ignored).toEqual([]);
  });

  it('sort, summary, total and what is reported as not applied', () => {
    const q = parseNativeQuery(new URLSearchParams('_sort=-date,_lastUpdated&_summary=count&_total=accurate&foo=1&_elements=id&code:missing=true'));
    expect(q.order).toEqual({ kind: 'date', descending: true });
    expect(q.summaryCount).toBe(true);
    expect(q.totalAccurate).toBe(true);
    expect(q.ignored.map((u) => u.name)).toEqual(['foo', 'code:missing', '_sort', '_elements']);
    expect(parseNativeQuery(new URLSearchParams('_sort=status')).order).toEqual(DEFAULT_ORDER);
    expect(parseNativeQuery(new URLSearchParams('_sort=_lastUpdated')).order).toEqual({ kind: 'updated', descending: false });
  });

  it('scoping parameters become scope filters, one per repetition', () => {
    const q = parseNativeQuery(new URLSearchParams('patient=1,Patient/2&patient.organization=3&patient._has:Group:member:_id=4&patient.identifier=s|v,w'));
    expect(q.scope).toEqual([{ patient: ['1', '2'] }, { organization: ['3'] }, { study: ['4'] }, { identifier: [{ system: 's', value: 'v' }, { value: 'w' }] }]);
  });

  it('a bad date or prefix is a 400', () => {
    for (const bad of ['date=2025-13', 'date=xx2025', '_lastUpdated=soon']) expect(status(() => parseNativeQuery(new URLSearchParams(bad))), bad).toBe(400);
  });
});

describe('cursor positions', () => {
  const order = { kind: 'date' as const, descending: true };
  const codec = observationPositions(order);

  it('round-trip through the codec the kernel binds to the search', () => {
    const at = { p: 1, i: 99, u: 0 as const, t: 1_700_000_000_000 };
    expect(codec.decode(JSON.parse(JSON.stringify(codec.encode(at))))).toEqual(at);
  });

  it('of another order, or with values no row has, are not positions', () => {
    const encoded = codec.encode({ p: 1, i: 2, u: 1, t: 0 });
    expect(observationPositions({ kind: 'date', descending: false }).decode(encoded)).toBeUndefined();
    for (const junk of [null, {}, 'dd', ['dd', 1, 2, 3], ['dd', -1, 2, 0, 0], ['dd', 1, 2, 2, 0], ['dd', 1, 2, 0, 8.64e15 + 1], ['dd', 1.5, 2, 0, 0]]) {
      expect(codec.decode(junk), JSON.stringify(junk)).toBeUndefined();
    }
  });
});

describe('Prefer', () => {
  it('reads return, handling and respond-async, ignoring the rest', () => {
    expect(parsePrefer('return=minimal, handling=strict')).toEqual({ return: 'minimal', handling: 'strict' });
    expect(parsePrefer('respond-async; return="OperationOutcome"')).toEqual({ respondAsync: true, return: 'OperationOutcome' });
    expect(parsePrefer('Respond-Async, handling=lenient')).toEqual({ respondAsync: true, handling: 'lenient' });
    expect(parsePrefer('respond-async=no')).toEqual({});
    expect(parsePrefer(undefined)).toEqual({});
    expect(parsePrefer('return=everything')).toEqual({});
  });
});
