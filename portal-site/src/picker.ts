/**
 * "Where do you get care?": searches the brands directory as the patient types and hands the
 * facility they choose to `choose` (the import launches there; so does "Send to my hospital"). The
 * results are buttons in a list (Tab or the arrow keys move between them, Enter chooses), and a live
 * region says how many were found. The page holds an empty `#picker` section naming its heading's
 * level (`data-heading`); the picker's markup is made here, once for every page.
 */
import { $, element, setStatus } from './page';
import type { BrandRow, ServiceApi } from './service';

/** Results shown at a time, and how long typing pauses before a search. */
const PICKER_RESULTS = 10;
const PICKER_PAUSE_MS = 200;

/** The picker's heading, help, search box, live count and list, in the page's `#picker` section. */
function pickerMarkup(section: HTMLElement): void {
  if (section.childElementCount > 0) return;
  const heading = element(section.dataset.heading === 'h3' ? 'h3' : 'h2', 'Where do you get care?');
  const help = element('p', 'Type the name of your hospital, clinic or health system, or your city, then choose it from the list.');
  const label = element('label', 'Hospital, clinic or city');
  const input = element('input');
  const count = element('p');
  const list = element('ul', undefined, 'choices');
  Object.assign(heading, { id: 'picker-heading' });
  Object.assign(help, { id: 'picker-help' });
  Object.assign(label, { htmlFor: 'hospital-search' });
  Object.assign(input, { id: 'hospital-search', type: 'search', autocomplete: 'off', spellcheck: false });
  input.setAttribute('aria-describedby', 'picker-help picker-count');
  Object.assign(count, { id: 'picker-count', role: 'status' });
  count.setAttribute('aria-live', 'polite');
  Object.assign(list, { id: 'hospital-list' });
  list.setAttribute('aria-label', 'Hospitals and clinics found');
  section.replaceChildren(heading, help, label, input, count, list);
}

export function pickHospital(api: ServiceApi, choose: (row: BrandRow) => Promise<void>): Promise<void> {
  pickerMarkup($('picker'));
  const input = $('hospital-search') as HTMLInputElement;
  const list = $('hospital-list');
  const count = $('picker-count');
  let current: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new Promise<void>((resolve, reject) => {
    const chosen = (row: BrandRow) => {
      setStatus(`Connecting to ${row.brand_name}…`);
      $('picker').hidden = true;
      choose(row).then(resolve, reject);
    };
    const show = (rows: BrandRow[], words: string) => {
      list.replaceChildren(
        ...rows.map((row) => {
          const button = element('button', undefined, 'choice');
          button.type = 'button';
          button.append(element('span', row.facility_name, 'facility'));
          if (row.brand_name !== row.facility_name) button.append(element('span', row.brand_name, 'brand'));
          if (row.address_text) button.append(element('span', row.address_text, 'address'));
          button.addEventListener('click', () => chosen(row));
          const item = element('li');
          item.append(button);
          return item;
        }),
      );
      count.textContent = !words ? '' : rows.length === 0 ? 'No hospital or clinic found. Try fewer letters, another name, or your city.' : `${rows.length}${rows.length === PICKER_RESULTS ? ' or more' : ''} found. Choose yours from the list below.`;
    };
    const search = () => {
      const words = input.value.trim();
      current?.abort();
      if (!words) return show([], '');
      const controller = (current = new AbortController());
      api.searchBrands(words, PICKER_RESULTS, controller.signal).then(
        (rows) => controller === current && show(rows, words),
        (e: unknown) => {
          if (controller === current && !(e instanceof DOMException && e.name === 'AbortError')) reject(e);
        },
      );
    };
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(search, PICKER_PAUSE_MS);
    });
    const buttons = () => Array.from(list.querySelectorAll<HTMLButtonElement>('button.choice'));
    input.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown' && buttons()[0]) {
        event.preventDefault();
        buttons()[0]!.focus();
      }
    });
    list.addEventListener('keydown', (event) => {
      const all = buttons();
      const at = all.indexOf(document.activeElement as HTMLButtonElement);
      if (event.key === 'ArrowDown' && at < all.length - 1) all[at + 1]!.focus();
      else if (event.key === 'ArrowUp') (at > 0 ? all[at - 1]! : input).focus();
      else if (event.key === 'Escape') input.focus();
      else return;
      event.preventDefault();
    });
    $('status').hidden = true;
    $('picker').hidden = false;
    document.body.dataset.state = 'picking';
    input.focus();
  });
}
