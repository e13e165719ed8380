/** `Patient/<id>/$cgm-summary` through the FHIR handler on DynamoDB Local (the suite: test/contract/cgm-summary.ts). */
import { cgmSummarySuite } from '../../contract/cgm-summary';

cgmSummarySuite();
