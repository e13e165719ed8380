/** String normalisation for search: case, accents and runs of white space do not matter. */

const MARKS = /\p{M}+/gu;
const SPACES = /\s+/g;

export function normaliseText(text: string): string {
  return text.normalize('NFD').replace(MARKS, '').toLowerCase().replace(SPACES, ' ').trim();
}
