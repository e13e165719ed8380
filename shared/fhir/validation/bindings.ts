/**
 * Required value-set bindings. Codes are looked up in the compiled code sets; a value set the
 * standard publishes no expansion for is checked by its grammar (see `CodeGrammar`).
 */
import { codeSetHas, codeSetMembership, type Binding, type CodeGrammar } from '../definitions';
import { shown } from '../../shown';

type Json = Record<string, any>;

/** UCUM needs the FHIRPath engine's UCUM tables; the validator passes the check in once loaded. */
export type UcumCheck = (unit: string) => boolean;

const GRAMMAR_SYSTEM: Record<Exclude<CodeGrammar, 'any'>, string> = {
  bcp47: 'urn:ietf:bcp:47',
  'mime-type': 'urn:ietf:bcp:13',
  ucum: 'http://unitsofmeasure.org',
  color: 'http://hl7.org/fhir/color-rgb',
};

const BCP47 = /^(?:[A-Za-z]{2,8}|[xXiI])(?:-[A-Za-z0-9]{1,8})*$/;
/** type/subtype, then parameters, which are read loosely (`; variant=DICOM WADO-RS` occurs in the wild). */
const MIME_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(?:\s*;\s*[\w!#$&^.+-]+=[^;]+)*$/;
const RGB = /^#[0-9A-Fa-f]{6}$/;

function matchesGrammar(grammar: CodeGrammar, code: string, ucum: UcumCheck): boolean {
  switch (grammar) {
    case 'any':
      return true;
    case 'bcp47':
      return BCP47.test(code);
    case 'mime-type':
      return MIME_TYPE.test(code);
    case 'color':
      return RGB.test(code);
    case 'ucum':
      return !/\s/.test(code) && ucum(code);
  }
}

/** Is (system, code) allowed by the binding? A missing system means "any system of the set". */
export function codeAllowed(binding: Binding, system: string | undefined, code: string, ucum: UcumCheck): boolean {
  if (system === undefined && binding.alsoAllowed?.includes(code)) return true;
  if (binding.file && codeSetHas(binding.file, system, code)) return true;
  const grammar = binding.grammar;
  if (!grammar) return false;
  if (grammar !== 'any' && system !== undefined && system !== GRAMMAR_SYSTEM[grammar]) return false;
  return matchesGrammar(grammar, code, ucum);
}

/** A short list of allowed codes for an error message (empty when the set is large or grammatical). */
export function allowedCodesHint(binding: Binding): string {
  if (!binding.file || binding.grammar) return '';
  const codes = [...codeSetMembership(binding.file).values()].flatMap((s) => [...s]);
  return codes.length <= 12 ? ` (allowed: ${codes.join(', ')})` : '';
}

export interface BindingProblem {
  message: string;
  /** Location suffix of the offending part, e.g. `.coding[0]`. */
  at: string;
}

/** Checks one value of a bound element by its datatype; returns the problems in prose. */
export function bindingProblems(binding: Binding, type: string, value: unknown, ucum: UcumCheck): BindingProblem[] {
  const vs = binding.valueSet;
  if (typeof value === 'string') {
    return codeAllowed(binding, undefined, value, ucum)
      ? []
      : [{ message: `'${value}' is not in the required value set ${vs}${allowedCodesHint(binding)}`, at: '' }];
  }
  if (!value || typeof value !== 'object') return [];
  const v = value as Json;
  if (type === 'Coding') {
    if (typeof v.code !== 'string') return [{ message: `a code from the required value set ${vs} is needed`, at: '' }];
    return codeAllowed(binding, v.system, v.code, ucum)
      ? []
      : [{ message: `${codingText(v)} is not in the required value set ${vs}${allowedCodesHint(binding)}`, at: '' }];
  }
  const concept = type === 'CodeableReference' ? (v.concept as Json | undefined) : v;
  if (!concept || type === 'CodeableReference' && v.concept === undefined) return [];
  const codings = (Array.isArray(concept.coding) ? concept.coding : []) as Json[];
  const coded = codings.filter((c) => typeof c?.code === 'string');
  if (coded.some((c) => codeAllowed(binding, c.system, c.code, ucum))) return [];
  const prefix = type === 'CodeableReference' ? '.concept' : '';
  if (coded.length === 0) return [{ message: `a coding from the required value set ${vs} is needed`, at: prefix }];
  const listed = coded.map(codingText).join(', ');
  return [{ message: `none of the codings (${listed}) is in the required value set ${vs}${allowedCodesHint(binding)}`, at: `${prefix}.coding` }];
}

function codingText(c: Json): string {
  return c.system ? `${shown(c.system)}|${c.code}` : `'${c.code}'`;
}
