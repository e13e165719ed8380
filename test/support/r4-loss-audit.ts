/**
 * An audit of the import's loss report that does not compare values: it takes each part of the R4
 * input away and converts again. A reported path whose removal changes the R5 output was carried (a
 * false report); a leaf outside every reported path whose removal changes nothing was not carried
 * (an unreported loss). Used by the corpus test on the standard's R4 examples.
 */
import { convertR4, convertR4Resource, type R4Conversion } from '../../shared/r4-import/convert';
import { lossReport } from '../../shared/r4-import/loss';

type Json = Record<string, any>;
type Segments = Array<string | number>;

/** `Type.a[0].b` -> `['a', 0, 'b']` (the corpus's keys are plain names). */
export function segmentsOf(path: string): Segments {
  return [...path.slice(path.indexOf('.') + 1).matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

const pathText = (type: string, segments: Segments) => segments.reduce<string>((p, s) => (typeof s === 'number' ? `${p}[${s}]` : `${p}.${s}`), type);

/** Every scalar leaf of the resource (its own resourceType aside). */
function leavesOf(resource: Json): Segments[] {
  const out: Segments[] = [];
  const walk = (value: unknown, at: Segments) => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...at, i]));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, [...at, k]);
    else if (value !== null && value !== undefined) out.push(at);
  };
  for (const [key, value] of Object.entries(resource)) if (key !== 'resourceType') walk(value, [key]);
  return out;
}

/** The output of converting the resource without the node at `segments` (taken out, then put back in its place). */
function convertedWithout(resource: Json, segments: Segments): string {
  let node: any = resource;
  for (const s of segments.slice(0, -1)) node = node[s];
  const last = segments[segments.length - 1]!;
  if (Array.isArray(node) && typeof last === 'number') {
    const [value] = node.splice(last, 1);
    try {
      return JSON.stringify(convertR4Resource(resource));
    } finally {
      node.splice(last, 0, value);
    }
  }
  const entries = Object.entries(node);
  delete node[last];
  try {
    return JSON.stringify(convertR4Resource(resource));
  } finally {
    for (const [k] of entries) delete node[k];
    for (const [k, v] of entries) node[k] = v;
  }
}

const isUnder = (path: string, ancestor: string) => path === ancestor || path.startsWith(`${ancestor}.`) || path.startsWith(`${ancestor}[`);

export interface LossAudit {
  /** Scalar leaves of the input. */
  values: number;
  /** Of them, those under a reported path. */
  dropped: number;
  /** Reported paths whose removal changes the output. */
  falseReports: string[];
  /** Leaves under no reported path whose removal changes nothing. */
  unreported: string[];
}

/** The import's own report: the paths it says were dropped. */
const importReport = (resource: Json, conversion: R4Conversion) => lossReport(resource, conversion).map((d) => d.path);

/** The audit of one resource's loss report (by default the import's), restoring the resource as it was. */
export function lossAudit(resource: Json, report = importReport): LossAudit | undefined {
  const conversion = convertR4(resource);
  if (!conversion) return undefined;
  const type = resource.resourceType as string;
  const output = JSON.stringify(conversion.resource);
  const same = (segments: Segments) => convertedWithout(resource, segments) === output;
  const reported = report(resource, conversion);
  const leaves = leavesOf(resource).map((segments) => ({ segments, path: pathText(type, segments) }));
  const kept = leaves.filter((leaf) => !reported.some((p) => isUnder(leaf.path, p)));
  return {
    values: leaves.length,
    dropped: leaves.length - kept.length,
    falseReports: reported.filter((path) => !same(segmentsOf(path))),
    unreported: kept.filter((leaf) => same(leaf.segments)).map((leaf) => leaf.path),
  };
}
