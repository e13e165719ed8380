/** The part of `@lhncbc/ucum-lhc` (it ships no types) that ucum-library.ts uses. */
declare module '@lhncbc/ucum-lhc' {
  export interface BaseUnitsAnswer {
    status: string;
    magnitude?: number;
    unitToExp?: Record<string, number>;
    fromUnitIsSpecial?: boolean;
  }
  export interface UcumUtils {
    validateUnitString(unit: string): { status: string; unit?: { code: string; name: string } };
    convertToBaseUnits(unit: string, value: number): BaseUnitsAnswer;
  }
  const ucum: { UcumLhcUtils: { getInstance(): UcumUtils } };
  export default ucum;
}
