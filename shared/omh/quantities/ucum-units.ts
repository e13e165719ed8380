/**
 * The UCUM code of every OMH / IEEE 1752 unit string the schemas allow (schemas/vocabulary.ts and
 * the single-unit members), read only by the generator (scripts/omh-quantities.ts), which checks
 * each code with the UCUM library and fails on one it does not know. OMH unit strings are labels,
 * not UCUM: `C` is the coulomb in UCUM and `F` the farad, so a unit is never passed through as its
 * own code unless this table says so.
 *
 * Where a label leaves a choice open, the US customary unit is taken (`Ton` the short ton, `fl oz`,
 * `Cup`, `pt`, `qt`, `gal`, `tsp`, `tbsp` the US volumes), as IEEE 1752 and Open mHealth are
 * US-published and list both `Metric Ton` and `Ton`. Counts per minute (`beats/min`,
 * `breaths/min`) are `/min`, as the FHIR vital-signs profiles require.
 *
 * Two members take any unit text (`base_movement_quantity` and `average_cadence` of
 * ieee:physical-activity:1.0): their text is looked up here too, and the few labels devices use
 * for them are listed (`steps/min`); any other text has no UCUM code and is kept as text.
 */
export const OMH_UCUM_UNITS: readonly (readonly [omh: string, ucum: string])[] = [
  // durations (DURATION_UNITS)
  ['ps', 'ps'], ['ns', 'ns'], ['us', 'us'], ['ms', 'ms'], ['sec', 's'], ['min', 'min'], ['h', 'h'],
  ['d', 'd'], ['wk', 'wk'], ['Mo', 'mo'], ['yr', 'a'],
  // masses (MASS_UNITS)
  ['fg', 'fg'], ['pg', 'pg'], ['ng', 'ng'], ['ug', 'ug'], ['mg', 'mg'], ['g', 'g'], ['kg', 'kg'],
  ['Metric Ton', 't'], ['gr', '[gr]'], ['oz', '[oz_av]'], ['lb', '[lb_av]'], ['Ton', '[ston_av]'],
  // lengths (LENGTH_UNITS)
  ['fm', 'fm'], ['pm', 'pm'], ['nm', 'nm'], ['um', 'um'], ['mm', 'mm'], ['cm', 'cm'], ['m', 'm'], ['km', 'km'],
  ['in', '[in_i]'], ['ft', '[ft_i]'], ['yd', '[yd_i]'], ['mi', '[mi_i]'],
  // volumes (VOLUME_UNITS)
  ['fL', 'fL'], ['pL', 'pL'], ['nL', 'nL'], ['uL', 'uL'], ['mL', 'mL'], ['cL', 'cL'], ['dL', 'dL'], ['L', 'L'],
  ['kL', 'kL'], ['fl oz', '[foz_us]'], ['Cup', '[cup_us]'], ['in^3', '[cin_i]'], ['pt', '[pt_us]'],
  ['qt', '[qt_us]'], ['gal', '[gal_us]'], ['tsp', '[tsp_us]'], ['tbsp', '[tbs_us]'],
  // temperatures (TEMPERATURE_UNITS)
  ['K', 'K'], ['F', '[degF]'], ['C', 'Cel'],
  // speeds (SPEED_UNITS)
  ['m/s', 'm/s'], ['km/h', 'km/h'],
  // single-unit members
  ['mmHg', 'mm[Hg]'], ['mg/dL', 'mg/dL'], ['mmol/L', 'mmol/L'], ['beats/min', '/min'], ['breaths/min', '/min'],
  ['%', '%'], ['L/min', 'L/min'], ['kcal', 'kcal'], ['steps', '{steps}'],
  // free-text members' usual labels
  ['steps/min', '{steps}/min'],
];
