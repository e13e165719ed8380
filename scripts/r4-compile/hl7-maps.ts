/**
 * What HL7's R4 -> R5 maps do with what the import drops, from the conversion facts: the list of
 * what the maps carry and the import drops (docs.ts writes it into docs/r4-import.md; the corpus
 * test checks it against every drop on the standard's R4 examples, both ways), and the verdict on
 * one reported drop. One list, so the docs and the audit cannot count differently.
 */
import { CONTAINED_ELEMENT } from '../../shared/r4-import/contained';
import type { Drop } from '../../shared/r4-import/why';
import { CONVERSION_FACTS, type ConversionFact } from './facts';

/** One thing HL7's maps carry and the import drops, with why. */
export interface MapsCarriedDrop {
  /** The R4 element a fact marked `hl7: 'carries'` drops, or the kind of drop any type may show. */
  id: string;
  /** As the docs name it (markdown). */
  what: string;
  reason: string;
  /** Whether a drop the import reported is this item. */
  covers: (drop: Drop) => boolean;
  /** A kind of drop any type may show (not one element's): listed whether or not a corpus shows it. */
  general?: true;
}

/** What the maps carry and the import drops for every type alike. */
const GENERAL_DROPS: readonly MapsCarriedDrop[] = [
  {
    id: 'primitive-extension',
    what: 'Extensions of primitive values (`_birthDate`)',
    reason: 'The import does not carry them ([the conversion rules](#the-conversion-rules-where-each-lives-and-its-test)).',
    covers: (drop) => drop.kind === 'primitive-extension',
    general: true,
  },
  {
    id: 'unreferenced-contained',
    what: 'A contained resource nothing refers to any more',
    reason:
      'R5 keeps a contained resource only where something in the resource refers to it (dom-3): when the element that referred to it has no R5 counterpart, keeping the contained resource would make the whole entry invalid.',
    covers: (drop) => drop.kind === 'no-place' && drop.element === CONTAINED_ELEMENT,
    general: true,
  },
];

/** The list: each element a fact marked `hl7: 'carries'` drops (once, with its first fact's reason), then the drops every type shares. */
export function mapsCarriedDrops(facts: readonly ConversionFact[] = CONVERSION_FACTS): MapsCarriedDrop[] {
  const byElement = new Map<string, MapsCarriedDrop>();
  for (const fact of facts) {
    if (fact.hl7 !== 'carries' || byElement.has(fact.from)) continue;
    const element = fact.from;
    byElement.set(element, {
      id: element,
      what: `\`${element}\``,
      reason: fact.reason,
      covers: (drop) => drop.kind === 'removed' && drop.element === element,
    });
  }
  return [...byElement.values(), ...GENERAL_DROPS];
}

/**
 * What HL7's maps do with what one drop lost: the list item it is (they carry it), `'maps drop it
 * too'` (a fact drops the element, or keeps only the parts of a value the maps keep, in agreement
 * with them; an element a fact keeps in a cross-version extension is not dropped, so a drop of it is
 * undecided), `'not R4'` (a key R4 does not define or a value of the wrong shape: no map reads
 * it), or undefined: no fact says, so whoever meets it decides and adds the fact.
 */
export function mapsVerdict(
  drop: Drop,
  list: readonly MapsCarriedDrop[] = mapsCarriedDrops(),
  facts: readonly ConversionFact[] = CONVERSION_FACTS,
): MapsCarriedDrop | 'maps drop it too' | 'not R4' | undefined {
  const item = list.find((i) => i.covers(drop));
  if (item) return item;
  if (drop.kind === 'unknown-element' || drop.kind === 'wrong-shape') return 'not R4';
  if (drop.kind !== 'removed' || drop.element === undefined) return undefined;
  const element = drop.element;
  const own = facts.filter((f) => f.from === element);
  if (own.length > 0) return own.every((f) => f.to === null && f.hl7 === undefined && f.inExtensionOf === undefined) ? 'maps drop it too' : undefined;
  // A value of which facts take parts (`Medication.amount.numerator`): the other parts go nowhere, as in the maps when no part's fact disagrees.
  const parts = facts.filter((f) => f.from.startsWith(`${element}.`));
  return parts.length > 0 && parts.every((f) => f.to !== null && f.hl7 === undefined) ? 'maps drop it too' : undefined;
}
