/**
 * The simulated devices of a load run: one patient each, with a login and a token, in studies of
 * one organization that request heart rate from one personal device, every patient consenting.
 * Built with the directory fixtures, so tests and `npm run bench -- load` make the same world.
 */
import pMap from 'p-map';
import { chunksOf } from '../../shared/lists';
import type { DataSource, Patient } from '../../shared/directory/model';
import { makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from './directory';

export const LOAD_CODE = 'omh:heart-rate:2.0';

export interface Fleet {
  device: DataSource;
  /** One patient per device, each with its own token. */
  patients: Array<Patient & WithToken>;
  /** A practitioner of the patients' organization. */
  practitioner: WithToken;
}

/** Setting up patients a few at a time: each is several directory writes and a token. */
const SETUP_CONCURRENCY = 8;
/** A study records its patients' consents one after another; several studies are set up at once. */
const PATIENTS_A_STUDY = 16;

export async function makeFleet(devices: number): Promise<Fleet> {
  const organization = await makeOrganization();
  const practitioner = await makePractitioner({ organizations: [organization] });
  const device = await makeDataSource({ codes: [LOAD_CODE] });
  const patients = await pMap(
    Array.from({ length: devices }),
    async () => (await makePatient({ organizations: [organization], login: true })) as Patient & WithToken,
    { concurrency: SETUP_CONCURRENCY },
  );
  await pMap(chunksOf(patients, PATIENTS_A_STUDY), (group) => makeStudy({ organization, codes: [LOAD_CODE], patients: group, consent: true, dataSources: [device] }), {
    concurrency: SETUP_CONCURRENCY,
  });
  return { device, patients, practitioner };
}
