/**
 * Moving the observations of layout 1 (table `observations`, every index a full copy, payloads as
 * Base64 text) into layout 2 (table `observations-v2`, keys-only indexes but the code index,
 * payloads as bytes): rows are rewritten through the item codec, so they gain exactly the layout's
 * attributes; id pointers, identifier claims and span statistics keep their form. Keys and ids do
 * not change, so every id a client holds still reads the same reading.
 */
import type { Item } from '../../store/copy-table';
import { fromItem, toItem } from './dynamo-items';

const isRow = (item: Item) => String(item.pk).startsWith('P#') && String(item.sk).startsWith('U#');

export function toLayout2(item: Item): Item[] {
  return [isRow(item) ? toItem(fromItem(item)) : item];
}
