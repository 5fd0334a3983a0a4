// Building DOM without innerHTML: every text the API returns is set as text, never parsed as markup.

/** An element: h('div', {class: 'x', onclick: fn}, 'text', child, [more children]). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name === 'value') el.value = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A bar of used/limit, with its figures. */
export function bar(used, limit, label = '') {
  const pct = limit > 0 ? Math.min(100, (100 * used) / limit) : 0;
  const level = pct >= 90 ? 'full' : pct >= 70 ? 'high' : 'ok';
  const fill = h('div', {class: `fill ${level}`});
  fill.style.width = `${pct.toFixed(1)}%`; // through the CSSOM: the policy refuses inline style attributes
  return h('div', {class: 'bar', title: `${label}${used} / ${limit}`, role: 'meter', 'aria-valuemin': 0,
    'aria-valuemax': limit, 'aria-valuenow': used}, fill);
}

/** An error box for a failed call (the API's own sentence). */
export function problem(err) {
  return h('p', {class: 'error', role: 'alert'}, err && err.message ? err.message : String(err));
}

/** A date as local time, short. */
export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString();
}
