/**
 * What each LOINC code of the table of standard codes (standard-codes.ts) measures: its property
 * (the kind of quantity, LOINC's 5th axis part 2) and whether its time aspect is an interval. Our
 * own table, written from the codes' LOINC entries (Fully-Specified Name: Property, Time), read by
 * the generator (scripts/omh-quantities.ts), which tells a member's coding variants apart by the
 * dimension of their property, and by the test that holds every coding of the table against the
 * UCUM dimension of every unit its member allows (test/unit/omh/quantities/loinc-properties.test.ts).
 *
 * A property's dimension is the canonical form of a representative UCUM unit (PROPERTY_UNITS),
 * computed with the UCUM library, never written out here: `g/L` (mass concentration) is `m-3.g`,
 * `mol/L` (substance concentration) `m-3` (UCUM's mole is a number).
 *
 * A rate measured over an interval (LOINC time aspect `XXX`, `24H`: "Number of steps in
 * unspecified time") is reported as what accrued over the interval, the reading's effective
 * period (a count of steps, the energy burned); such a code also allows the dimension of that
 * amount (RATE_AMOUNT_UNITS). At a point in time (`Pt`: heart rate) only the rate itself.
 */

/** LOINC properties of the codes in use (LOINC's abbreviations); `-` is a panel's, `Type` a nominal's: neither is a quantity. */
export type LoincProperty = 'MCnc' | 'SCnc' | 'NRat' | 'EngRat' | 'VRat' | 'Temp' | 'Mass' | 'Vol' | 'Time' | 'Pres' | 'MFr' | 'Type' | '-';

export interface LoincFacts {
  property: LoincProperty;
  /** The time aspect is an interval (`XXX`, `24H`), not a point in time (`Pt`). */
  interval: boolean;
}

const pt = (property: LoincProperty): LoincFacts => ({ property, interval: false });
const over = (property: LoincProperty): LoincFacts => ({ property, interval: true });

/** Every LOINC code the table of standard codes uses, by code. */
export const LOINC_FACTS: ReadonlyMap<string, LoincFacts> = new Map([
  // Glucose, by property (mass or substance concentration) and specimen.
  ['2339-0', pt('MCnc')], //  Glucose [Mass/volume] in Blood
  ['15074-8', pt('SCnc')], // Glucose [Moles/volume] in Blood
  ['41653-7', pt('MCnc')], // Glucose [Mass/volume] in Capillary blood by Glucometer
  ['14743-9', pt('SCnc')], // Glucose [Moles/volume] in Capillary blood by Glucometer
  ['99504-3', pt('MCnc')], // Glucose [Mass/volume] in Interstitial fluid
  ['105272-9', pt('SCnc')], // Glucose [Moles/volume] in Interstitial fluid
  // Vital signs and spirometry.
  ['85354-9', pt('-')], // Blood pressure panel with all children optional
  ['8480-6', pt('Pres')],
  ['8462-4', pt('Pres')],
  ['8310-5', pt('Temp')],
  ['8867-4', pt('NRat')],
  ['9279-1', pt('NRat')],
  ['59408-5', pt('MFr')], // Oxygen saturation in Arterial blood by Pulse oximetry
  ['3151-8', pt('VRat')], // Inhaled oxygen flow rate
  ['29463-7', pt('Mass')],
  ['19870-5', pt('Vol')],
  ['20150-9', pt('Vol')],
  // Activity and sleep.
  ['73985-4', pt('Type')], // Exercise activity: the kind of activity (nominal)
  ['55411-3', pt('Time')], // Exercise duration
  ['55423-8', over('NRat')], // Number of steps in unspecified time Pedometer
  ['55424-6', over('EngRat')], // Calories burned in unspecified time Pedometer
  ['93832-4', pt('Time')],
  ['93829-0', pt('Time')],
  ['93830-8', pt('Time')],
  ['93831-6', pt('Time')],
]);

/** A representative UCUM unit of each quantitative property, whose canonical form is the property's dimension; none for a panel or a nominal. */
export const PROPERTY_UNITS: Readonly<Record<LoincProperty, string | undefined>> = {
  MCnc: 'g/L',
  SCnc: 'mol/L',
  NRat: '/s',
  EngRat: 'W',
  VRat: 'L/s',
  Temp: 'K',
  Mass: 'g',
  Vol: 'L',
  Time: 's',
  Pres: 'Pa',
  // A fraction (of mass here) has no dimension: `%` and `1` alike.
  MFr: '1',
  Type: undefined,
  '-': undefined,
};

/** What a rate accrues over an interval, as a representative UCUM unit: a number rate counts, an energy rate is energy, a volume rate volume. */
export const RATE_AMOUNT_UNITS: Partial<Readonly<Record<LoincProperty, string>>> = {
  NRat: '1',
  EngRat: 'J',
  VRat: 'L',
};

/** The representative UCUM units of the dimensions a code's values may have (none: not a quantity). */
export function dimensionUnitsOf(facts: LoincFacts): string[] {
  const unit = PROPERTY_UNITS[facts.property];
  if (unit === undefined) return [];
  const amount = facts.interval ? RATE_AMOUNT_UNITS[facts.property] : undefined;
  return amount === undefined ? [unit] : [unit, amount];
}
