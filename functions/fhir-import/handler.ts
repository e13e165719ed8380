/** Lambda of the `fhir-import` family: `/fhir-import/R4` and `/fhir-import/R4/<type>`. */
import { createHandler } from '../../shared/http/handler';

export const handler = createHandler({ family: 'fhir-import', routes: [] });
