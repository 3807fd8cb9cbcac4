// A per-day chart of a count split in parts that add up (assistant turns answered + unanswered,
// feedback helpful + not helpful), drawn as stacked bars in inline SVG. Days without a complete
// 1-day export get a marker instead of a bar: a gap is not a zero.

import { moveTooltip, niceScale, svg } from './charts.js';
import { formatCompact, formatDay, formatNumber, formatWeekday } from './format.js';

/**
 * Draws `days` ([{ date, counts: { [key]: n } | null }]) into `container`. `series` lists the
 * stacked parts bottom up: [{ key, label, cls }]; each part's rect gets the class `bar-<cls>`.
 * `notes` are extra counts shown in the tooltip only: [{ key, label }].
 */
export function renderSplitChart(container, days, { series, notes = [], label }, tooltip) {
  container.replaceChildren();
  const width = Math.max(300, Math.floor(container.clientWidth || 600));
  const height = 220;
  const margin = { top: 12, right: 10, bottom: 28, left: 44 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const total = (d) => series.reduce((n, s) => n + (d.counts?.[s.key] ?? 0), 0);
  const { top, step } = niceScale(Math.max(0, ...days.map(total)), 4);
  const band = plotW / days.length;
  const barW = Math.max(1, Math.min(22, band * 0.66));
  const x = (i) => margin.left + band * i + band / 2;
  const y = (v) => margin.top + plotH - (v / top) * plotH;

  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': `${label}, ${days[0]?.date} to ${days.at(-1)?.date}` });
  const grid = svg('g', { class: 'axis' });
  for (let v = 0; v <= top + 1e-9; v += step) {
    grid.append(svg('line', { class: v === 0 ? 'baseline' : 'gridline', x1: margin.left, x2: width - margin.right, y1: y(v), y2: y(v) }));
    const text = svg('text', { x: margin.left - 8, y: y(v) + 4, 'text-anchor': 'end' });
    text.textContent = formatCompact(v);
    grid.append(text);
  }
  const every = Math.max(1, Math.ceil(64 / band));
  days.forEach((d, i) => {
    if ((days.length - 1 - i) % every !== 0) return;
    const text = svg('text', { x: x(i), y: height - 8, 'text-anchor': 'middle' });
    text.textContent = formatDay(d.date);
    grid.append(text);
  });
  root.append(grid);

  const bars = svg('g', { class: 'bars' });
  days.forEach((d, i) => {
    const g = svg('g', { class: 'band', 'data-date': d.date });
    if (d.counts) {
      let base = 0;
      for (const s of series) {
        const value = d.counts[s.key] ?? 0;
        g.append(svg('rect', { class: `bar-${s.cls}`, x: x(i) - barW / 2, y: y(base + value), width: barW, height: y(base) - y(base + value), 'data-value': value }));
        base += value;
      }
    } else {
      g.append(svg('rect', { class: 'bar-missing', x: x(i) - barW / 2, y: y(0) - 3, width: barW, height: 3, rx: 1 }));
    }
    bars.append(g);
  });
  root.append(bars);

  const hits = svg('g', { class: 'hits' });
  days.forEach((d, i) => {
    const hit = svg('rect', { class: 'hit', x: margin.left + band * i, y: margin.top, width: band, height: plotH });
    hit.addEventListener('mouseenter', () => {
      bars.children[i]?.classList.add('hover');
      showTooltip(tooltip, d, series, notes);
    });
    hit.addEventListener('mousemove', (event) => moveTooltip(tooltip, event));
    hit.addEventListener('mouseleave', () => {
      bars.children[i]?.classList.remove('hover');
      tooltip.hidden = true;
    });
    hits.append(hit);
  });
  root.append(hits);
  container.append(root);
}

function showTooltip(tooltip, day, series, notes) {
  tooltip.replaceChildren();
  const row = (cls, text, value) => {
    const r = document.createElement('div');
    r.className = 't-row';
    const k = document.createElement('span');
    k.className = `t-key ${cls}`;
    k.textContent = text;
    const v = document.createElement('span');
    v.textContent = value;
    r.append(k, v);
    return r;
  };
  const title = document.createElement('div');
  title.className = 't-date';
  title.textContent = formatWeekday(day.date);
  tooltip.append(title);
  if (day.counts) {
    for (const s of [...series].reverse()) tooltip.append(row(s.cls, s.label, formatNumber(day.counts[s.key])));
    for (const n of notes) tooltip.append(row('note', n.label, formatNumber(day.counts[n.key])));
  } else {
    const note = document.createElement('div');
    note.textContent = 'No complete 1-day export';
    tooltip.append(note);
  }
  tooltip.hidden = false;
}
