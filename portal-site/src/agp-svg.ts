/**
 * The AGP chart as an inline SVG (its geometry from shared/portal/agp-chart.ts): drawn by the page
 * itself, so it shows on every phone (a PDF in a frame does not: mobile browsers download it or show
 * its first page as a picture) and needs nothing the Content-Security-Policy forbids. Colours are
 * presentation attributes, not styles; the chart is one image to assistive technology, named by its
 * heading and described by the sentence beside it.
 */
import type { AgpChart } from '../../shared/portal/agp-chart';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

export function agpSvg(chart: AgpChart, labelledBy: string, describedBy: string): SVGSVGElement {
  const { plot, colours } = chart;
  const root = svg('svg', { viewBox: `0 0 ${chart.width} ${chart.height}`, role: 'img', 'aria-labelledby': labelledBy, 'aria-describedby': describedBy, class: 'agp-chart' });
  const inside = svg('g', { transform: `translate(${plot.x} ${plot.y})` });
  const rule = (y: number, stroke: string, extra: Record<string, string | number> = {}) => svg('line', { x1: 0, x2: plot.width, y1: y, y2: y, stroke, 'stroke-width': 0.75, ...extra });
  inside.append(svg('rect', { x: 0, y: chart.targetBand.y, width: plot.width, height: chart.targetBand.height, fill: colours.targetBand }));
  for (const hour of chart.hours) inside.append(svg('line', { x1: hour.x, x2: hour.x, y1: 0, y2: plot.height, stroke: colours.grid, 'stroke-width': 0.5 }));
  for (const y of chart.dashedLines) inside.append(rule(y, colours.rule, { 'stroke-dasharray': '3 3' }));
  inside.append(
    svg('path', { d: chart.paths.outer, fill: colours.outer, class: 'agp-outer' }),
    svg('path', { d: chart.paths.inner, fill: colours.inner, class: 'agp-inner' }),
    svg('path', { d: chart.paths.median, fill: 'none', stroke: colours.median, 'stroke-width': 2, class: 'agp-median' }),
  );
  for (const y of chart.targetLines) inside.append(rule(y, colours.target, { 'stroke-width': 1 }));
  inside.append(rule(plot.height, colours.rule), svg('line', { x1: 0, x2: 0, y1: 0, y2: plot.height, stroke: colours.rule, 'stroke-width': 0.75 }));
  const text = (content: string, attributes: Record<string, string | number>) => {
    const node = svg('text', { fill: colours.text, 'font-size': 10, ...attributes });
    node.textContent = content;
    return node;
  };
  for (const hour of chart.hours) inside.append(text(hour.label, { x: hour.x, y: plot.height + 14, 'text-anchor': 'middle' }));
  for (const tick of chart.glucose) inside.append(text(tick.label, { x: -4, y: tick.y + 3.5, 'text-anchor': 'end', 'font-weight': tick.strong ? 'bold' : 'normal' }));
  root.append(inside);
  return root;
}
