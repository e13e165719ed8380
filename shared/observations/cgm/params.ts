/**
 * The parameters of `Patient/<id>/$cgm-summary` (docs/cgm.md#the-operation-patientidcgm-summary),
 * from the query string of a GET or the Parameters body of a POST, parsed once into the typed
 * request (request.ts). A parameter not of the operation, given twice, or of a value it does not
 * take is a 400 naming it; the period's own checks are the request's (`resolvePeriod`).
 */
import { operationParameters, parameterText, type OperationParameter } from '../../fhir/parameters';
import { badRequest } from '../../http/errors';
import { TARGET_SETS, type TargetSetName } from '../../cgm/thresholds';
import { GLUCOSE_UNITS, type GlucoseUnit } from '../../cgm/units';
import type { CgmRequest } from './request';

const NAMES = ['start', 'end', 'timeZone', 'unit', 'targets'] as const;
type Name = (typeof NAMES)[number];
const KNOWN: ReadonlySet<string> = new Set(NAMES);

/** The units by how a request may write them: the UCUM codes, or the guide's unit texts (`mg/dl`, `mmol/l`). */
const UNITS: ReadonlyMap<string, GlucoseUnit> = new Map(GLUCOSE_UNITS.flatMap((u) => [[u, u] as const, [u.toLowerCase(), u] as const]));

export function parseCgmRequest(patientId: string, method: string, query: URLSearchParams, body: unknown, operation = 'cgm-summary'): CgmRequest {
  const given = new Map<Name, OperationParameter>();
  for (const p of operationParameters(method, query, body, `A POST of $${operation}`)) {
    if (!KNOWN.has(p.name)) throw badRequest(`The parameter ${p.name} is not a parameter of $${operation} (it takes ${NAMES.join(', ')}).`, 'not-supported').at(p.at);
    if (given.has(p.name as Name)) throw badRequest(`Give ${p.name} once.`).at(p.at);
    given.set(p.name as Name, p);
  }
  const text = (name: Name) => {
    const p = given.get(name);
    return p && parameterText(p).trim();
  };
  const unitText = text('unit');
  const unit = unitText === undefined ? undefined : UNITS.get(unitText);
  if (unitText !== undefined && !unit) throw badRequest('unit is mg/dL or mmol/L.').at(given.get('unit')!.at);
  const targets = text('targets');
  if (targets !== undefined && !TARGET_SETS.has(targets)) throw badRequest(`targets is ${[...TARGET_SETS.keys()].join(' or ')}.`).at(given.get('targets')!.at);
  const [start, end, timeZone] = [text('start'), text('end'), text('timeZone')];
  return {
    subject: `Patient/${patientId}`,
    ...(start === undefined ? {} : { start }),
    ...(end === undefined ? {} : { end }),
    ...(timeZone === undefined ? {} : { timeZone }),
    ...(unit ? { unit } : {}),
    ...(targets === undefined ? {} : { targets: targets as TargetSetName }),
  };
}
