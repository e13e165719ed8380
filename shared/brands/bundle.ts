/**
 * A SMART User-access Brands Bundle (a `collection` of brand Organizations, the Endpoints they
 * name, and facility Organizations `partOf` a brand) reduced to the directory's entries: one per
 * FHIR base URL the portal can launch against, with every facility reached through it.
 *
 * What makes the file unusable refuses it whole, with the first problems named by their place in
 * the file: not a Bundle, not a collection, an entry or a resource of the wrong shape. What a
 * well-formed file may simply not offer is skipped and counted: an Organization with no usable
 * endpoint (none named, or only inactive ones, or only FHIR versions the portal cannot read), an
 * Organization without a name, a reference to something not in the file.
 */
import * as z from 'zod/mini';
import type { BrandEntry, Facility, FacilityAddress } from './model';

/** A refused file: every line of `problems` names a place in it. */
export class BrandsFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`The brands file was refused: ${problems.join('; ')}`);
    this.name = 'BrandsFileError';
  }
}

/** Problems named in a refusal: enough to fix the file, not a flood. */
const MAX_PROBLEMS = 10;
/** Longer names and address lines are not names a patient reads: the Organization is skipped. */
export const MAX_TEXT = 300;
/** `partOf` links followed from a facility to its brand (the format allows two). */
const MAX_PART_OF_DEPTH = 3;

const text = z.string();
const reference = z.looseObject({ reference: z.optional(text) });
const extension = z.looseObject({
  url: text,
  valueCode: z.optional(text),
  valueReference: z.optional(reference),
  extension: z.optional(z.array(z.looseObject({ url: text, valueReference: z.optional(reference) }))),
});
const address = z.looseObject({
  text: z.optional(text),
  line: z.optional(z.array(text)),
  city: z.optional(text),
  state: z.optional(text),
  postalCode: z.optional(text),
});
const organization = z.looseObject({
  resourceType: z.literal('Organization'),
  id: text,
  name: z.optional(text),
  alias: z.optional(z.array(text)),
  partOf: z.optional(reference),
  endpoint: z.optional(z.array(reference)),
  address: z.optional(z.array(address)),
  extension: z.optional(z.array(extension)),
});
const endpoint = z.looseObject({
  resourceType: z.literal('Endpoint'),
  id: text,
  address: text,
  status: z.optional(text),
  connectionType: z.optional(z.looseObject({ code: z.optional(text) })),
  extension: z.optional(z.array(extension)),
});
const entry = z.looseObject({ fullUrl: z.optional(text), resource: z.looseObject({ resourceType: text }) });
const bundle = z.looseObject({
  resourceType: z.literal('Bundle'),
  type: z.literal('collection'),
  timestamp: z.optional(text),
  meta: z.optional(z.looseObject({ lastUpdated: z.optional(text) })),
  entry: z.optional(z.array(z.unknown())),
});

type Organization = z.output<typeof organization>;
type Endpoint = z.output<typeof endpoint>;

export interface ParsedBrands {
  /** `Bundle.timestamp`, else `meta.lastUpdated`. */
  timestamp?: string;
  /** In FHIR base URL order. */
  entries: BrandEntry[];
  /** What was left out, with how many times. */
  skipped: Map<string, number>;
}

const where = (path: readonly PropertyKey[]) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');

function issuesOf(error: z.core.$ZodError, prefix: string): string[] {
  return error.issues.map((issue) => `${where([prefix, ...issue.path]) || 'the file'}: ${issue.message}`);
}

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
};

/** The FHIR versions an Endpoint declares (the `endpoint-fhir-version` extension, under any publisher's URL). */
const versionsOf = (e: Endpoint) => (e.extension ?? []).filter((x) => x.url.endsWith('/endpoint-fhir-version') && x.valueCode).map((x) => x.valueCode!);

/** Which version of a usable endpoint the portal prefers: R4 (the import reports losses), then R5, then undeclared. */
function rankOf(e: Endpoint): { rank: number; version?: string } | undefined {
  if (!isHttpUrl(e.address) || (e.status !== undefined && e.status !== 'active')) return undefined;
  if (e.connectionType?.code !== undefined && e.connectionType.code !== 'hl7-fhir-rest') return undefined;
  const versions = versionsOf(e);
  if (versions.length === 0) return { rank: 2 };
  const r4 = versions.find((v) => v.startsWith('4.'));
  if (r4) return { rank: 0, version: r4 };
  const r5 = versions.find((v) => v.startsWith('5.'));
  return r5 ? { rank: 1, version: r5 } : undefined;
}

/** Every endpoint an Organization names: `endpoint`, and the portal extension's `portalEndpoint`s. */
function endpointReferences(org: Organization): string[] {
  const refs = (org.endpoint ?? []).map((r) => r.reference);
  for (const x of org.extension ?? []) {
    if (!x.url.endsWith('/organization-portal')) continue;
    for (const part of x.extension ?? []) if (part.url === 'portalEndpoint') refs.push(part.valueReference?.reference);
  }
  return refs.filter((r): r is string => Boolean(r));
}

function addressesOf(org: Organization): FacilityAddress[] {
  const out: FacilityAddress[] = [];
  for (const a of org.address ?? []) {
    const city = a.city?.trim() || undefined;
    const state = a.state?.trim() || undefined;
    const postalCode = a.postalCode?.trim() || undefined;
    const shown = a.text?.trim() || [...(a.line ?? []).map((l) => l.trim()), city, [state, postalCode].filter(Boolean).join(' ')].filter(Boolean).join(', ');
    if (!shown) continue;
    out.push({ text: shown, ...(city ? { city } : {}), ...(state ? { state } : {}), ...(postalCode ? { postalCode } : {}) });
  }
  return out;
}

/** Reads a Brands Bundle; throws BrandsFileError when it cannot be used at all. */
export function parseBrandsBundle(value: unknown): ParsedBrands {
  const top = z.safeParse(bundle, value);
  if (!top.success) throw new BrandsFileError(issuesOf(top.error, '').slice(0, MAX_PROBLEMS));
  const problems: string[] = [];
  const organizations: Array<{ org: Organization; at: number }> = [];
  /** Resources by every name a reference may use: `Type/id`, and the entry's fullUrl. */
  const named = new Map<string, { org?: Organization; endpoint?: Endpoint }>();
  (top.data.entry ?? []).forEach((raw, i) => {
    const parsed = z.safeParse(entry, raw);
    if (!parsed.success) return void problems.push(...issuesOf(parsed.error, `entry[${i}]`));
    const { resource, fullUrl } = parsed.data;
    const schema = resource.resourceType === 'Organization' ? organization : resource.resourceType === 'Endpoint' ? endpoint : undefined;
    if (!schema) return;
    const typed = z.safeParse(schema, resource);
    if (!typed.success) return void problems.push(...issuesOf(typed.error, `entry[${i}].resource`));
    const held = typed.data.resourceType === 'Organization' ? { org: typed.data as Organization } : { endpoint: typed.data as Endpoint };
    if (held.org) organizations.push({ org: held.org, at: i });
    for (const name of [`${typed.data.resourceType}/${typed.data.id}`, fullUrl]) if (name) named.set(name, held);
  });
  if (problems.length > 0) throw new BrandsFileError(problems.slice(0, MAX_PROBLEMS));

  const skipped = new Map<string, number>();
  const skip = (reason: string) => skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
  /** A reference as written (`Endpoint/x`, or an absolute URL ending in `Endpoint/x`, or a fullUrl). */
  const resolve = (ref: string) => named.get(ref) ?? named.get(ref.split('/').slice(-2).join('/'));

  /** The endpoint a brand launches against: its best usable one, in file order within a rank. */
  const launchOf = new Map<Organization, { url: string; version?: string } | null>();
  const endpointOf = (org: Organization) => {
    if (launchOf.has(org)) return launchOf.get(org)!;
    let best: { url: string; version?: string; rank: number } | undefined;
    for (const ref of endpointReferences(org)) {
      const e = resolve(ref)?.endpoint;
      const ranked = e && rankOf(e);
      if (ranked && (!best || ranked.rank < best.rank)) best = { url: e.address.trim().replace(/\/+$/, ''), rank: ranked.rank, ...(ranked.version ? { version: ranked.version } : {}) };
    }
    const launch = best ? { url: best.url, ...(best.version ? { version: best.version } : {}) } : null;
    launchOf.set(org, launch);
    return launch;
  };

  /** The brand an Organization is reached through: itself when it names a usable endpoint, else up its `partOf` links. */
  const brandOf = (org: Organization): Organization | undefined => {
    let at: Organization | undefined = org;
    for (let depth = 0; at && depth <= MAX_PART_OF_DEPTH; depth += 1) {
      if (endpointOf(at)) return at;
      const parent: string | undefined = at.partOf?.reference;
      at = parent ? resolve(parent)?.org : undefined;
    }
    return undefined;
  };

  const entries = new Map<string, BrandEntry>();
  for (const { org } of organizations) {
    const name = org.name?.trim();
    if (!name) {
      skip('an Organization without a name');
      continue;
    }
    const brand = brandOf(org);
    const launch = brand && endpointOf(brand);
    if (!brand || !launch) {
      skip('an Organization reaching no active R4 or R5 FHIR endpoint');
      continue;
    }
    const aliases = (org.alias ?? []).map((a) => a.trim()).filter(Boolean);
    const addresses = addressesOf(org);
    const brandName = brand.name?.trim() || name;
    if ([name, brandName, ...aliases, ...addresses.map((a) => a.text)].some((t) => t.length > MAX_TEXT)) {
      skip(`an Organization with a name or address over ${MAX_TEXT} characters`);
      continue;
    }
    const facility: Facility = { name, brandName, addresses, ...(aliases.length > 0 ? { aliases } : {}) };
    const held = entries.get(launch.url) ?? { fhirBaseUrl: launch.url, ...(launch.version ? { fhirVersion: launch.version } : {}), facilities: [] };
    held.facilities.push(facility);
    entries.set(launch.url, held);
  }
  if (entries.size === 0) throw new BrandsFileError(['the file names no Organization reaching an active R4 or R5 FHIR endpoint, so loading it would empty its list']);
  const timestamp = top.data.timestamp ?? top.data.meta?.lastUpdated;
  return {
    ...(timestamp ? { timestamp } : {}),
    entries: [...entries.values()].sort((a, b) => (a.fhirBaseUrl < b.fhirBaseUrl ? -1 : a.fhirBaseUrl > b.fhirBaseUrl ? 1 : 0)),
    skipped,
  };
}
