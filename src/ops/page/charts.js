// The daily visitors chart, drawn as inline SVG: a bar per day for total uniques, lines with points
// for human and AI, a marker on days without a complete export, and a tooltip per day.
// Human + AI may exceed the total (a visitor seen as both counts once), so they are not stacked.

import { formatCompact, formatNumber, formatWeekday, formatDay } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

/** A round axis maximum and its tick step (1, 2, 2.5 or 5 × 10^n). */
export function niceScale(max, ticks = 5) {
  if (max <= 0) return { top: ticks, step: 1 };
  const rough = max / ticks;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  return { top: Math.ceil(max / step) * step, step };
}

/** Path of a series, broken where a day has no value. */
function linePath(points) {
  let d = '';
  let pen = false;
  for (const p of points) {
    if (p === null) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`;
    pen = true;
  }
  return d;
}

/**
 * Draws `days` ([{ date, counts: { human, ai, total } | null }]) into `container`, sized to its
 * width. `tooltip` is an element shown on hover.
 */
export function renderDailyChart(container, days, tooltip) {
  container.replaceChildren();
  const width = Math.max(320, Math.floor(container.clientWidth || 900));
  const height = 300;
  const margin = { top: 14, right: 12, bottom: 30, left: 52 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const max = Math.max(0, ...days.filter((d) => d.counts).map((d) => Math.max(d.counts.total, d.counts.human, d.counts.ai)));
  const { top, step } = niceScale(max);
  const band = plotW / days.length;
  const barW = Math.max(1, Math.min(28, band * 0.66));
  const x = (i) => margin.left + band * i + band / 2;
  const y = (v) => margin.top + plotH - (v / top) * plotH;

  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': `Unique visitors per day, ${days[0]?.date} to ${days.at(-1)?.date}`,
  });

  const grid = svg('g', { class: 'axis' });
  for (let v = 0; v <= top + 1e-9; v += step) {
    grid.append(svg('line', { class: v === 0 ? 'baseline' : 'gridline', x1: margin.left, x2: width - margin.right, y1: y(v), y2: y(v) }));
    const label = svg('text', { x: margin.left - 8, y: y(v) + 4, 'text-anchor': 'end' });
    label.textContent = formatCompact(v);
    grid.append(label);
  }
  // Date labels at least ~64px apart, always including the last day.
  const every = Math.max(1, Math.ceil(64 / band));
  days.forEach((d, i) => {
    if ((days.length - 1 - i) % every !== 0) return;
    const label = svg('text', { x: x(i), y: height - 10, 'text-anchor': 'middle' });
    label.textContent = formatDay(d.date);
    grid.append(label);
  });
  root.append(grid);

  const bars = svg('g', { class: 'bars' });
  days.forEach((d, i) => {
    const g = svg('g', { class: 'band', 'data-date': d.date });
    if (d.counts) {
      const h = Math.max(d.counts.total > 0 ? 1 : 0, plotH - (y(d.counts.total) - margin.top));
      g.append(svg('rect', { class: 'bar-total', x: x(i) - barW / 2, y: y(d.counts.total), width: barW, height: h, rx: Math.min(3, barW / 3) }));
    } else {
      g.append(svg('rect', { class: 'bar-missing', x: x(i) - barW / 2, y: y(0) - 3, width: barW, height: 3, rx: 1 }));
    }
    bars.append(g);
  });
  root.append(bars);

  for (const series of ['human', 'ai']) {
    const points = days.map((d, i) => (d.counts ? { x: x(i), y: y(d.counts[series]), date: d.date } : null));
    root.append(svg('path', { class: `line-${series}`, d: linePath(points) }));
    const dots = svg('g', { class: `points-${series}` });
    const r = band >= 9 ? 3 : 2;
    for (const p of points) if (p) dots.append(svg('circle', { class: `point-${series}`, cx: p.x, cy: p.y, r, 'data-date': p.date }));
    root.append(dots);
  }

  // Hover targets over whole day columns, on top of everything.
  const hits = svg('g', { class: 'hits' });
  days.forEach((d, i) => {
    const hit = svg('rect', { class: 'hit', x: margin.left + band * i, y: margin.top, width: band, height: plotH });
    hit.addEventListener('mouseenter', () => {
      bars.children[i]?.classList.add('hover');
      showTooltip(tooltip, d);
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

function showTooltip(tooltip, day) {
  tooltip.replaceChildren();
  const row = (key, label, value) => {
    const r = document.createElement('div');
    r.className = 't-row';
    const k = document.createElement('span');
    k.className = `t-key ${key}`;
    k.textContent = label;
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
    tooltip.append(row('total', 'Total', formatNumber(day.counts.total)), row('human', 'Human', formatNumber(day.counts.human)), row('ai', 'AI', formatNumber(day.counts.ai)));
  } else {
    const note = document.createElement('div');
    note.textContent = 'No complete 1-day export';
    tooltip.append(note);
  }
  tooltip.hidden = false;
}

export function moveTooltip(tooltip, event) {
  const pad = 14;
  const { innerWidth } = window;
  const w = tooltip.offsetWidth;
  const left = event.clientX + pad + w > innerWidth ? event.clientX - pad - w : event.clientX + pad;
  tooltip.style.left = `${left}px`;
  tooltip.style.top = `${event.clientY + pad}px`;
}
