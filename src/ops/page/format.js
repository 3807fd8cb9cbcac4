// Formatting and DOM helpers for the dashboard page. Everything that comes from the warehouse is
// put into the page as text (never as HTML): paths, errors and links are data, not markup.

const numberFormat = new Intl.NumberFormat('en-US');
const compactFormat = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const dayFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayYearFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
const weekdayFormat = new Intl.DateTimeFormat('en-US', { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });

export const formatNumber = (n) => (n === null || n === undefined ? '—' : numberFormat.format(n));
export const formatCompact = (n) => compactFormat.format(n);

const utc = (day) => new Date(`${day}T00:00:00Z`);
export const formatDay = (day) => dayFormat.format(utc(day));
export const formatDayYear = (day) => dayYearFormat.format(utc(day));
export const formatWeekday = (day) => weekdayFormat.format(utc(day));
export const formatTime = (iso) => (iso ? timeFormat.format(new Date(iso)) : '—');

/** The day before an exclusive end date. */
export function lastDayOf(dateTo) {
  return new Date(utc(dateTo).getTime() - 86_400_000).toISOString().slice(0, 10);
}

/** `May 3` for a 1-day window, `May 1 – May 31, 2024` otherwise (the end shown inclusive). */
export function formatWindow(dateFrom, dateTo) {
  const last = lastDayOf(dateTo);
  return last === dateFrom ? formatDayYear(dateFrom) : `${formatDay(dateFrom)} – ${formatDayYear(last)}`;
}

export function formatDuration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} m`;
}

/** An export lag (whole days, as `status` prints it): `0 d`, `3 d`. */
export function formatLagDays(days) {
  return `${days} d`;
}

export function formatAge(seconds) {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  const m = seconds / 60;
  if (m < 90) return `${Math.round(m)} min`;
  const h = m / 60;
  if (h < 48) return `${Math.round(h)} h`;
  return `${Math.round(h / 24)} days`;
}

/** Creates an element: `el('td', { class: 'num' }, '42')`. Children are nodes or text. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    // CSSOM, not a style attribute: the page's CSP allows no inline styles.
    else if (key === 'style') Object.assign(node.style, value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Only http(s) links become anchors; anything else is shown as text. */
export function safeLink(url, text) {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') {
      return el('a', { href: parsed.href, target: '_blank', rel: 'noopener noreferrer' }, text ?? url);
    }
  } catch {
    /* not a URL */
  }
  return el('span', { class: 'mono' }, url);
}

/** An empty state that says why the panel is empty and what to do about it. */
export function emptyState(title, ...body) {
  return el('div', { class: 'empty' }, el('strong', {}, title), el('div', {}, ...body));
}

export function problemState(title, message) {
  return el('div', { class: 'problem' }, el('strong', {}, title), el('div', { class: 'small' }, message));
}

export function table(headers, rows) {
  const head = el('thead', {}, el('tr', {}, headers.map((h) => el('th', { class: h.num ? 'num' : undefined }, h.label))));
  return el('div', { class: 'table-wrap' }, el('table', {}, head, el('tbody', {}, rows)));
}
