/**
 * What the portal keeps between its pages, in this tab's sessionStorage only (never in a URL,
 * never in localStorage): the invitation code (for "Start again" and the glucose page), the service
 * session, the run in progress (its FHIR Source, reused when a failed run is restarted so that
 * nothing is stored twice), and a send to the hospital in progress (the summary the patient saw and
 * chose to send, across the hospital's sign-in), and the glucose unit the patient chose on the
 * glucose page. fhirclient keeps the hospital's state there too.
 */
import { GLUCOSE_UNITS, type GlucoseUnit } from '../../shared/cgm/units';
import type { ServiceSession } from './service';

const CODE = 'cdx.portal.invitation';
const SESSION = 'cdx.portal.session';
const RUN = 'cdx.portal.run';
const HOSPITAL = 'cdx.portal.hospital';
const SEND = 'cdx.portal.send';
const UNIT = 'cdx.portal.unit';

/** The hospital the patient chose in the picker (or the one configured), as the report names it. */
export interface ChosenHospital {
  name: string;
  fhirBaseUrl: string;
}

export interface Run {
  /** The service patient, the hospital and the patient there: a restart of the same pull. */
  patient: string;
  iss: string;
  hospitalPatient: string;
  sourceId: number;
}

function read<T>(key: string): T | undefined {
  try {
    const text = sessionStorage.getItem(key);
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}

export const invitationCode = (): string | undefined => read<string>(CODE);
export const rememberInvitationCode = (code: string) => sessionStorage.setItem(CODE, JSON.stringify(code));

export const serviceSession = (): ServiceSession | undefined => read<ServiceSession>(SESSION);
export const keepServiceSession = (session: ServiceSession) => sessionStorage.setItem(SESSION, JSON.stringify(session));

export const chosenHospital = (): ChosenHospital | undefined => read<ChosenHospital>(HOSPITAL);
export const keepChosenHospital = (hospital: ChosenHospital) => sessionStorage.setItem(HOSPITAL, JSON.stringify(hospital));

/** A send to the hospital between its launch and its return: the hospital's name as chosen (if it was), and the report Bundle to send. */
export interface PendingSend {
  hospitalName: string | undefined;
  report: unknown;
}

export const pendingSend = (): PendingSend | undefined => read<PendingSend>(SEND);
export const keepPendingSend = (send: PendingSend) => sessionStorage.setItem(SEND, JSON.stringify(send));
export const forgetPendingSend = () => sessionStorage.removeItem(SEND);

/** The glucose unit the patient chose in this tab, if they chose one. */
export const chosenUnit = (): GlucoseUnit | undefined => GLUCOSE_UNITS.find((u) => u === read<string>(UNIT));
export const rememberUnit = (unit: GlucoseUnit) => sessionStorage.setItem(UNIT, JSON.stringify(unit));

/** The unfinished run of this pull, if a restart can continue it. */
export function unfinishedRun(patient: string, iss: string, hospitalPatient: string): Run | undefined {
  const run = read<Run>(RUN);
  return run && run.patient === patient && run.iss === iss && run.hospitalPatient === hospitalPatient ? run : undefined;
}
export const keepRun = (run: Run) => sessionStorage.setItem(RUN, JSON.stringify(run));

/**
 * Forgets every token (the service's and the hospital's) and a send in progress once the callback
 * or the send is done; keeps the invitation code and the glucose unit chosen, and the run only when
 * it did not finish.
 */
export function endSession(finished: boolean): void {
  const kept = [CODE, UNIT, ...(finished ? [] : [RUN])].flatMap((key) => {
    const value = sessionStorage.getItem(key);
    return value === null ? [] : [[key, value] as const];
  });
  sessionStorage.clear();
  for (const [key, value] of kept) sessionStorage.setItem(key, value);
}
