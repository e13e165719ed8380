/**
 * The version headers of a FHIR resource (`ETag`, `Last-Modified`), from its `meta`: one rule for
 * reads and writes alike.
 */

export interface Meta {
  versionId?: string;
  lastUpdated?: string;
}

export function metaOf(resource: Record<string, unknown>): Meta {
  const meta = resource.meta;
  return typeof meta === 'object' && meta !== null ? (meta as Meta) : {};
}

/** The weak validator of a version: a FHIR ETag is `W/"<versionId>"`. */
export const etagOf = (versionId: string) => `W/"${versionId}"`;
/** An instant (`meta.lastUpdated`) as an HTTP date (`Last-Modified`). */
export const httpDate = (instant: string) => new Date(instant).toUTCString();

/** `ETag` (`W/"<versionId>"`) and, when the instant is known, `Last-Modified` (an HTTP date) of a version. */
export function versionHeaders(versionId: string, lastUpdated: string | undefined): Record<string, string> {
  return { ETag: etagOf(versionId), ...(lastUpdated ? { 'Last-Modified': httpDate(lastUpdated) } : {}) };
}

/**
 * The version headers of a resource read, from its meta. A resource that keeps no versions (a
 * projection of a directory entity, changed in place) is named by the instant of its last change,
 * so the tag still changes whenever the resource does.
 */
export function versionHeadersOf(resource: Record<string, unknown>): Record<string, string> {
  const { versionId, lastUpdated } = metaOf(resource);
  const version = versionId ?? lastUpdated;
  return version ? versionHeaders(version, lastUpdated) : {};
}
