/**
 * Demo auxiliary data of `npm start`: a FHIR Source for the demo patient (through the demo
 * patient app) and two clinical resources stored through it, so reads and searches of the
 * auxiliary store have something to find and writes have a source to name.
 */
import { createAuxiliary } from '../shared/auxiliary/writes';
import type { PatientCaller } from '../shared/auth/caller';
import { listDataSources } from '../shared/directory/data-sources';
import { createFhirSource } from '../shared/directory/fhir-sources';
import { getUserByEmail } from '../shared/directory/users';
import { sourceUri } from '../shared/fhir/constants';
import { DEMO_PATIENT_EMAIL } from './demo-directory';
import type { SeedStep } from './seed-step';

const RESOURCES = [
  {
    resourceType: 'Condition',
    id: 'demo-condition-1',
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
    code: { coding: [{ system: 'http://snomed.info/sct', code: '38341003', display: 'Hypertensive disorder' }], text: 'High blood pressure' },
    subject: { reference: 'Patient/ehr-1' },
    onsetDateTime: '2021-04-12',
    recordedDate: '2021-04-12T09:30:00+02:00',
  },
  {
    resourceType: 'AllergyIntolerance',
    id: 'demo-allergy-1',
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical', code: 'active' }] },
    code: { coding: [{ system: 'http://snomed.info/sct', code: '91936005', display: 'Allergy to penicillin' }] },
    patient: { reference: 'Patient/ehr-1' },
    recordedDate: '2019-09-03',
  },
];

export const demoAuxiliary: SeedStep = {
  name: 'auxiliary',
  run: async (ctx) => {
    const user = await getUserByEmail(DEMO_PATIENT_EMAIL);
    const app = (await listDataSources()).find((d) => d.type === 'patient_app');
    if (!user?.patientId || !app) return;
    const source = await createFhirSource({ patientId: user.patientId, dataSourceId: app.id, label: 'Demo hospital EHR', fhirBaseUrl: 'https://ehr.example.org/fhir' });
    const caller: PatientCaller = { kind: 'patient', userId: user.id, patientId: user.patientId, scopes: [] };
    for (const resource of RESOURCES) {
      await createAuxiliary({ caller, type: resource.resourceType, origin: '', sourceHeader: String(source.id) }, resource);
    }
    ctx.notes.push(
      `  Auxiliary      FHIR Source ${source.id} of patient ${user.patientId} (${sourceUri(source.id)}) holds a Condition and an AllergyIntolerance;`,
      `                 write more with POST /FHIR/R5/<Type> and the header X-SVC-FHIR-Source-ID: ${source.id}`,
    );
  },
};
