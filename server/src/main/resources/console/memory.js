// Core memory: each block with its chars/limit bar and permission, edited through the API (same ACL and limits).
import {enc, get, patch} from './api.js';
import {bar, h, mount, problem, when} from './dom.js';

const chars = s => [...(s || '')].length; // code points, as Engram counts

export async function memoryTab(el, agent) {
  const blocks = await get(`/v1/agents/${enc(agent.id)}/core-memory/blocks`);
  mount(el, h('div', {class: 'blocks'}, blocks.map(b => blockCard(agent, b))));
}

function blockCard(agent, block) {
  const card = h('article', {class: 'card block', dataset: {label: block.label}});
  const render = b => {
    const value = h('textarea', {class: 'block-value', rows: Math.min(12, Math.max(3, b.value.split('\n').length + 1)),
      'aria-label': `${b.label} value`}, b.value);
    const limit = h('input', {class: 'block-limit', type: 'number', min: 1, value: String(b.limit), 'aria-label': `${b.label} limit`});
    const count = h('span', {class: 'count'}, `${chars(b.value)}/${b.limit}`);
    const meter = h('div', {}, bar(chars(b.value), b.limit, 'chars '));
    const status = h('div', {class: 'status'});
    value.addEventListener('input', () => {
      count.textContent = `${chars(value.value)}/${limit.value}`;
      mount(meter, bar(chars(value.value), Number(limit.value) || 0, 'chars '));
      card.classList.toggle('over', chars(value.value) > Number(limit.value));
    });
    const save = async e => {
      e.preventDefault();
      const body = {};
      if (value.value !== b.value) body.value = value.value;
      if (Number(limit.value) !== b.limit) body.limit = Number(limit.value);
      if (Object.keys(body).length === 0) { mount(status, h('p', {class: 'muted'}, 'Nothing changed.')); return; }
      try {
        const saved = await patch(`/v1/agents/${enc(agent.id)}/core-memory/blocks/${enc(b.label)}`, body);
        render(saved);
        card.querySelector('.status').append(h('p', {class: 'ok'}, 'Saved.'));
      } catch (err) {
        mount(status, problem(err));
      }
    };
    mount(card,
      h('header', {},
        h('h3', {}, b.label),
        h('span', {class: `perm perm-${b.permission || (b.read_only ? 'read_only' : 'read_write')}`},
          (b.permission || (b.read_only ? 'read_only' : 'read_write')).replace('_', '-')),
        count),
      meter,
      b.description ? h('p', {class: 'muted'}, b.description) : null,
      h('form', {class: 'block-edit', onsubmit: save}, value,
        h('div', {class: 'row-inline'}, h('label', {}, 'limit ', limit),
          h('span', {class: 'muted'}, `updated ${when(b.updated_at)}`),
          h('button', {type: 'submit', class: 'save'}, 'Save'))),
      status);
  };
  render(block);
  return card;
}
