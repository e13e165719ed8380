/**
 * `SMART_FIXTURE=1 npm start`: runs two of the tests' SMART on FHIR fixture hospitals
 * (`test/fixtures/smart-server.ts`) beside the service: one R4 that refuses Observation searches
 * without a category (and MedicationRequest searches without a status), one R5, each with records
 * of every type the portal reads. It loads the sample brands file naming them (written to the data
 * folder as `brands-sample.json`, list `sample`) so the portal's picker finds them (and the glucose
 * page's "Send to my hospital": both take writes of its summary), and gives the
 * demo patient without a login a fresh invitation. `SMART_FIXTURE=R4` or `R5` runs one hospital
 * with the portal pointed at it (`SMART_ISS`'s one-hospital flow). `SMART_FIXTURE_SCOPES=v1` makes
 * their authorization servers know SMART v1 scopes only, as some hospitals' do. Development only:
 * nothing of it is deployed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importBrands } from '../shared/brands/import';
import { portalConfig, PORTAL_CALLBACK_PATH, type PortalConfig } from '../shared/portal/config';
import type { SmartFixture, SmartFixtureOptions } from '../test/fixtures/smart-server';
import type { SampleBrand } from '../test/fixtures/brands-bundle';
import { describeImport } from '../scripts/brands';
import { inviteDemoPatient } from './demo-oauth';

export interface LocalSmartFixture {
  portal: PortalConfig;
  /** Once the service runs: registers its callback, loads the sample brands, and returns the banner lines. */
  ready(siteUrl: string, dataDir: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The fixture hospitals' options: the R4 one as strict about searches as some hospitals are. Both
 * take the glucose page's summary (Observations, DiagnosticReports): the R4 one as a transaction,
 * the R5 one in batches.
 */
const TAKES_CGM_SUMMARIES = ['Observation', 'DiagnosticReport'];
export const FIXTURE_HOSPITALS: Readonly<Record<'R4' | 'R5', SmartFixtureOptions>> = {
  R4: { mode: 'R4', name: 'Fixture General Hospital (R4)', requires: { Observation: 'category', MedicationRequest: 'status' }, accepts: TAKES_CGM_SUMMARIES, bundles: ['transaction'] },
  R5: { mode: 'R5', name: 'Fixture Community Clinic (R5)', accepts: TAKES_CGM_SUMMARIES, bundles: ['batch'] },
};

/** The sample brands file: the two hospitals, a facility of each, and the addresses the picker shows. */
export function sampleBrands(r4: SmartFixture, r5: SmartFixture): SampleBrand[] {
  return [
    {
      id: 'fixture-general',
      name: 'Fixture General Hospital',
      fhirBaseUrl: r4.iss,
      fhirVersion: '4.0.1',
      addresses: [{ line: '100 Main Street', city: 'Springfield', state: 'IL', postalCode: '62701' }],
      facilities: [
        { id: 'fixture-general-north', name: 'Fixture General North Clinic', addresses: [{ line: '9 North Road', city: 'Springfield', state: 'IL', postalCode: '62704' }] },
        { id: 'fixture-general-children', name: 'Fixture Children’s Hospital', addresses: [{ line: '3 Lake Drive', city: 'Madison', state: 'WI', postalCode: '53703' }] },
      ],
    },
    {
      id: 'fixture-community',
      name: 'Fixture Community Clinic',
      fhirBaseUrl: r5.iss,
      fhirVersion: '5.0.0',
      addresses: [{ line: '7 Harbor Street', city: 'Portland', state: 'OR', postalCode: '97201' }],
      facilities: [{ id: 'fixture-community-sp', name: 'Clínica Comunitária São Paulo', addresses: [{ line: 'Avenida Paulista 1000', city: 'São Paulo', state: 'SP', postalCode: '01310-100' }] }],
    },
  ];
}

const count = () => Number(process.env.SMART_FIXTURE_COUNT ?? 25);
const smartV1Only = () => process.env.SMART_FIXTURE_SCOPES?.toLowerCase() === 'v1';

/** The fixture when `SMART_FIXTURE` asks for one (`1`: both hospitals and the picker; `R4` or `R5`: that one), else undefined. */
export async function startLocalSmartFixture(setting: string | undefined): Promise<LocalSmartFixture | undefined> {
  if (!setting || setting === '0') return undefined;
  const { startSmartFixture } = await import('../test/fixtures/smart-server');
  const { brandsBundle } = await import('../test/fixtures/brands-bundle');
  const upper = setting.toUpperCase();
  const one = upper === 'R5' || upper === 'R4' ? upper : undefined;
  const modes: ReadonlyArray<'R4' | 'R5'> = one ? [one] : ['R4', 'R5'];
  const fixtures = await Promise.all(modes.map((mode) => startSmartFixture({ ...FIXTURE_HOSPITALS[mode], count: count(), pageSize: 10, smartV1Only: smartV1Only() })));
  const clientId = fixtures[0]!.clientId;
  const portal = one
    ? portalConfig({ iss: fixtures[0]!.iss, clientId, scopes: process.env.SMART_SCOPES })
    : portalConfig({ clientId, scopes: process.env.SMART_SCOPES, origins: fixtures.map((f) => f.origin).join(' ') });
  return {
    portal,
    ready: async (siteUrl, dataDir) => {
      for (const fixture of fixtures) fixture.redirectUri = `${siteUrl}${PORTAL_CALLBACK_PATH}`;
      const lines = fixtures.map((f) => `  SMART fixture  ${f.name} at ${f.iss} (patient ${f.patientId}, ${f.records.length} records${f.smartV1Only ? ', SMART v1 scopes only' : ''})`);
      if (!one) {
        const file = join(dataDir, 'brands-sample.json');
        writeFileSync(file, `${JSON.stringify(brandsBundle(sampleBrands(fixtures[0]!, fixtures[1]!), new Date().toISOString()), null, 2)}\n`);
        const [summary] = describeImport(await importBrands('sample', JSON.parse(readFileSync(file, 'utf8'))));
        lines.push(`  Brands         ${summary} (from ${file}); the portal asks "Where do you get care?"`);
      }
      const invited = await inviteDemoPatient();
      if (invited) {
        lines.push(
          `  Try the portal as Patient/${invited.patient.id} (${invited.patient.nameGiven} ${invited.patient.nameFamily}), then press Allow:`,
          `                 ${invited.issued.invitationLink}`,
        );
      }
      return lines;
    },
    close: async () => {
      await Promise.all(fixtures.map((f) => f.close()));
    },
  };
}
