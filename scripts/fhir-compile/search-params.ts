/**
 * SearchParameters -> per-type parameter lists. A parameter shared by many types (one FHIRPath
 * union such as `AllergyIntolerance.patient | CarePlan.subject.where(...) | ...`) is narrowed to the
 * parts about each type, so extraction never evaluates the other 65 types' paths.
 */
import type { SearchParamComponent, SearchParamDef, SearchParamKind } from '../../shared/fhir/definitions/model';
import { splitUnion } from '../../shared/fhir/fhirpath/union';
import type { Json } from './packages';

const STANDARDS_STATUS_EXT = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-standards-status';

/** Bases whose parameters apply to every resource type. */
const COMMON_BASES = new Set(['Resource', 'DomainResource']);

export interface CompiledSearchParams {
  byType: Map<string, SearchParamDef[]>;
  common: SearchParamDef[];
  /** Parameters left out, with the reason (defects of the published package). */
  skipped: string[];
}

/** The standard's own parameters: the package also carries experimental examples (`example`, `filter`). */
function isStandard(sp: Json): boolean {
  return sp.experimental !== true && (sp.extension ?? []).some((x: Json) => x.url === STANDARDS_STATUS_EXT);
}

export function compileSearchParams(
  all: Json[],
  resourceTypes: readonly string[],
  abstractTypes: readonly string[],
  ancestorsOf: (type: string) => string[],
): CompiledSearchParams {
  const standard = all.filter(isStandard);
  const byUrl = new Map(standard.map((sp) => [sp.url as string, sp]));
  const known = new Set([...resourceTypes, ...abstractTypes]);
  const byType = new Map<string, SearchParamDef[]>(resourceTypes.map((t) => [t, []]));
  const common: SearchParamDef[] = [];
  const skipped: string[] = [];

  for (const sp of standard) {
    const broken = (sp.component as Json[] | undefined)?.find((c) => !byUrl.has(c.definition));
    if (broken) {
      skipped.push(`${sp.url}: composite component ${broken.definition} is not a published SearchParameter`);
      continue;
    }
    const bases = sp.base as string[];
    if (bases.some((b) => COMMON_BASES.has(b))) {
      // `_text` is published twice (on Resource and DomainResource); the narrower one wins.
      const twin = common.findIndex((p) => p.code === sp.code);
      const param = paramFor(sp, null, byUrl, known, []);
      if (twin < 0) common.push(param);
      else if (bases.includes('DomainResource')) common[twin] = param;
      continue;
    }
    for (const type of resourceTypes) {
      const ancestors = ancestorsOf(type);
      if (!bases.includes(type) && !bases.some((b) => ancestors.includes(b))) continue;
      byType.get(type)!.push(paramFor(sp, type, byUrl, known, ancestors));
    }
  }
  const byCode = (a: SearchParamDef, b: SearchParamDef) => a.code.localeCompare(b.code);
  for (const list of byType.values()) list.sort(byCode);
  common.sort(byCode);
  return { byType, common, skipped };
}

function paramFor(
  sp: Json,
  type: string | null,
  byUrl: Map<string, Json>,
  known: Set<string>,
  ancestors: string[],
): SearchParamDef {
  const def: SearchParamDef = { code: sp.code, type: sp.type as SearchParamKind, url: sp.url };
  if (sp.expression) {
    const expression = type ? narrowToType(sp.expression, type, known, ancestors) : sp.expression;
    if (expression) def.expression = expression;
  }
  if (sp.target?.length) def.targets = [...(sp.target as string[])].sort();
  if (sp.component?.length) {
    def.components = (sp.component as Json[]).map((c): SearchParamComponent => {
      const ref = byUrl.get(c.definition)!;
      return { code: ref.code, type: ref.type, expression: c.expression };
    });
  }
  if (sp.processingMode === 'phonetic' || sp.processingMode === 'other') def.processing = sp.processingMode;
  const documentation = documentationFor(sp.description as string | undefined, type);
  if (documentation) def.documentation = documentation;
  return def;
}

/**
 * Keeps the parts of a top-level `|` union that start at `type` (or an abstract ancestor, or at
 * no type name at all); drops the parts that start at another resource type.
 */
export function narrowToType(expression: string, type: string, known: Set<string>, ancestors: readonly string[]): string {
  const parts = splitUnion(expression);
  const kept = parts.filter((part) => {
    const head = /^\(*\s*([A-Z][A-Za-z]*)\b/.exec(part)?.[1];
    return !head || !known.has(head) || head === type || ancestors.includes(head);
  });
  return kept.join(' | ');
}

/** The line of a multi-resource description about `type`, or the whole (single-type) description. */
function documentationFor(description: string | undefined, type: string | null): string | undefined {
  if (!description) return undefined;
  if (!description.startsWith('Multiple Resources')) return description.trim();
  if (!type) return undefined;
  const line = description.split(/\r?\n/).find((l) => l.startsWith(`* [${type}](`));
  return line?.replace(/^\* \[[^\]]+\]\([^)]*\):\s*/, '').trim() || undefined;
}
