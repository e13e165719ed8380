/**
 * The mobile-health code table as data: the sixteen rows every installation starts with (in this
 * order, labels exactly as shown to users), plus the four codes the demo data set adds.
 */
import { OMH_SYSTEM } from '../fhir/constants';

export const IEEE_SYSTEM = 'https://w3id.org/ieee1752';
export const FHIR_RESOURCE_TYPES_SYSTEM = 'http://hl7.org/fhir/resource-types';

export interface CodeSeed {
  system: string;
  code: string;
  display: string;
}

export const SEEDED_CODES: readonly CodeSeed[] = [
  { system: OMH_SYSTEM, code: 'omh:blood-glucose:4.0', display: 'Blood glucose' },
  { system: OMH_SYSTEM, code: 'omh:blood-pressure:4.0', display: 'Blood pressure' },
  { system: OMH_SYSTEM, code: 'omh:body-temperature:4.0', display: 'Body temperature' },
  { system: OMH_SYSTEM, code: 'omh:heart-rate:2.0', display: 'Heart Rate' },
  { system: OMH_SYSTEM, code: 'omh:oxygen-saturation:2.0', display: 'Oxygen saturation' },
  { system: OMH_SYSTEM, code: 'omh:respiratory-rate:2.0', display: 'Respiratory rate' },
  { system: OMH_SYSTEM, code: 'omh:rr-interval:1.0', display: 'RR Interval' },
  { system: OMH_SYSTEM, code: 'omh:body-weight:3.0', display: 'Body weight' },
  { system: OMH_SYSTEM, code: 'omh:forced-vital-capacity:1.0', display: 'Forced vital capacity' },
  { system: OMH_SYSTEM, code: 'omh:forced-expiratory-volume-1-second:1.0', display: 'Forced expiratory volume 1 second' },
  { system: FHIR_RESOURCE_TYPES_SYSTEM, code: 'QuestionnaireResponse', display: 'FHIR QuestionnaireResponse (not an OMH schema)' },
  { system: OMH_SYSTEM, code: 'omh:physical-activity:1.2', display: 'Physical activity' },
  { system: OMH_SYSTEM, code: 'omh:step-count:3.0', display: 'Step count' },
  { system: IEEE_SYSTEM, code: 'ieee:sleep-stage-summary:1.0', display: 'Sleep stage summary' },
  { system: OMH_SYSTEM, code: 'omh:sleep-episode:1.1', display: 'Sleep episode' },
  { system: OMH_SYSTEM, code: 'omh:sleep-duration:2.0', display: 'Sleep duration' },
];

export const DEMO_CODES: readonly CodeSeed[] = [
  { system: IEEE_SYSTEM, code: 'ieee:physical-activity:1.0', display: 'Physical activity' },
  { system: IEEE_SYSTEM, code: 'ieee:sleep-episode:1.0', display: 'Sleep episode (IEEE)' },
  { system: IEEE_SYSTEM, code: 'ieee:time-in-bed:1.0', display: 'Time in bed' },
  { system: OMH_SYSTEM, code: 'omh:total-sleep-time:1.0', display: 'Total sleep time' },
];
