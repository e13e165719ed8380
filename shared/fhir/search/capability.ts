/** The search parameters a type can be searched by here, in the CapabilityStatement's terms. */
import type { SearchParamCapability } from '../registry';
import { extractableParams } from './extract';

/** Every parameter extraction indexes (all but `special` ones and `_in`), with the standard's definition. */
export function searchParamCapabilities(type: string): SearchParamCapability[] {
  return extractableParams(type).map((p) => ({
    name: p.code,
    type: p.type,
    definition: p.url,
    ...(p.documentation ? { documentation: p.documentation } : {}),
  }));
}
