/**
 * A glucose sensor's readings among a code's stored readings (docs/cgm.md#the-readings): the
 * readings whose standard coding is one of the CGM guide's sensor readings (`sensorKindOf`, from the
 * quantities table, as the intake of FHIR sensor readings decides it: LOINC
 * 99504-3 in mg/dL, 105272-9 in mmol/L), that is a blood glucose whose payload names
 * `interstitial fluid` as its specimen (docs/payloads.md#codes-that-follow-what-was-measured), as
 * every page and search of the service codes it. A glucometer's readings (capillary blood, or no
 * specimen) are not a sensor's, and a reading `entered-in-error` is none at all (as `$stats` leaves
 * it out).
 *
 * Each becomes what shared/cgm/ computes with: its instant (the effective start, as a period places
 * it: ../period.ts), the UTC offset its start was written with (`startOffsetOf`: the profile's
 * clock), and its value in mg/dL.
 */
import type { CgmReading } from '../../cgm/digest';
import { mgdlOf } from '../../cgm/units';
import { sensorKindOf } from '../../omh/derived';
import { startOffsetOf } from '../../omh/effective-time';
import { observationCodingOf, observationCodings, schemaQuantities, specimenOf, type SchemaQuantities, type StandardCoding } from '../../omh/quantities';
import type { StoredObservation } from '../model';
import { placeOf } from '../period';
import { readingValues, storedBody } from '../values';

const isSensorCoding = (coding: Pick<StandardCoding, 'system' | 'code'> | undefined) => sensorKindOf(coding) !== undefined;

/** Whether readings of a schema may be a sensor's (one of its codings is a sensor reading's): the schemas whose day summaries keep a digest. */
export function holdsSensorReadings(schemaCode: string): boolean {
  const quantities = schemaQuantities(schemaCode);
  return quantities !== undefined && observationCodings(quantities).some(isSensorCoding);
}

/** The sensor reading a stored reading is, or undefined when it is none. */
function sensorReadingOf(row: StoredObservation, schemaCode: string, quantities: SchemaQuantities): CgmReading | undefined {
  const at = placeOf(row);
  if (at === undefined || row.status === 'entered-in-error') return undefined;
  const body = storedBody(row.data);
  const values = readingValues(row, schemaCode);
  if (!isSensorCoding(observationCodingOf(quantities, values, specimenOf(quantities, body)))) return undefined;
  const value = values.find((v) => v.member === quantities.principal);
  const mgdl = value && mgdlOf(value.value, value.unit);
  if (mgdl === undefined) return undefined;
  return { at, offsetMinutes: startOffsetOf(body) ?? 0, mgdl };
}

/** The sensor readings among rows of one code (none for a code whose readings cannot be a sensor's). */
export function sensorReadingsOf(rows: readonly StoredObservation[], schemaCode: string): CgmReading[] {
  const quantities = schemaQuantities(schemaCode);
  if (!quantities || !holdsSensorReadings(schemaCode)) return [];
  return rows.flatMap((row) => sensorReadingOf(row, schemaCode, quantities) ?? []);
}
