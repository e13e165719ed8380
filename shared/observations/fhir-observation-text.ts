/**
 * Stored readings as the JSON text of their FHIR Observation, for writers of many at once (an
 * export's NDJSON): exactly the text `JSON.stringify(toFhirObservation(o, code))` gives, made
 * without building the object. Building and then serialising it cost about 11 µs a reading, a
 * quarter of an export's CPU; here what every reading of a code shares (its category, `meta.source`, each
 * coding its units choose) is made into text once per writer, and each reading adds its own fields.
 * The order of the fields is `toFhirObservation`'s, and the test renders every kind of reading both
 * ways and compares the texts.
 */
import type { Code } from '../directory/model';
import { nativeSourceUri } from '../fhir/constants';
import { isoInstant } from '../omh/datetime';
import type { StandardCoding } from '../omh/quantities';
import { derivedTag, fhirCategory, fhirIdentifiers, readingCode, renderingOf } from './fhir-observation';
import type { StoredObservation } from './model';

/** What the readings of one code share, as text. */
interface CodeText {
  /** `"category":[...],` or nothing. */
  category: string;
  /** `"code":{...}` for each standard coding its readings were given (by the coding's identity: the schema tables' own objects). */
  code: Map<StandardCoding | undefined, string>;
}

export class ObservationTexts {
  /** By the code as the code table gave it: an edited display comes as another object, and is written as edited. */
  private readonly byCode = new WeakMap<Code, CodeText>();
  private readonly meta = `,"source":${JSON.stringify(nativeSourceUri())}`;
  private readonly derived = `,"tag":[${JSON.stringify(derivedTag())}]`;

  /** The reading's Observation as JSON text. */
  of(o: StoredObservation, code: Code): string {
    const shared = this.sharedOf(code);
    const rendering = renderingOf(o, code);
    let codeText = shared.code.get(rendering.observation);
    if (codeText === undefined) {
      codeText = `"code":${JSON.stringify(readingCode(code, rendering.observation))}`;
      // Codings are the schema tables' own objects, so this holds a handful (and never more than 64).
      if (shared.code.size < 64) shared.code.set(rendering.observation, codeText);
    }
    return (
      `{"resourceType":"Observation","id":"${o.id}","meta":{"lastUpdated":${JSON.stringify(o.lastUpdated)}${this.meta}${rendering.derived ? this.derived : ''}},` +
      (o.identifiers.length > 0 ? `"identifier":${JSON.stringify(fhirIdentifiers(o))},` : '') +
      `"status":${JSON.stringify(o.status)},${shared.category}${codeText},"subject":{"reference":"Patient/${o.patientId}"},` +
      effectiveText(o.effective) +
      `"device":{"reference":"Device/${o.deviceId}"},"valueAttachment":{"contentType":"application/json","data":${JSON.stringify(o.data)}}` +
      (rendering.components.length > 0 ? `,"component":${JSON.stringify(rendering.components)}}` : '}')
    );
  }

  private sharedOf(code: Code): CodeText {
    let shared = this.byCode.get(code);
    if (!shared) {
      const category = fhirCategory(code.code);
      shared = { category: category ? `"category":${JSON.stringify(category)},` : '', code: new Map() };
      this.byCode.set(code, shared);
    }
    return shared;
  }
}

/** `fhirEffective` as text, with the comma that follows it. */
function effectiveText(effective: StoredObservation['effective']): string {
  if (!effective) return '';
  if (effective.kind === 'dateTime') return `"effectiveDateTime":"${isoInstant(effective.start)}",`;
  return `"effectivePeriod":{"start":"${isoInstant(effective.start)}","end":"${isoInstant(effective.end)}"},`;
}
