// Shared (standalone) blocks of the key's user: listed with their size against the limit, created and edited.
import {get, patch, post, enc} from './api.js';
import {bar, h, mount, problem} from './dom.js';

const chars = s => [...(s || '')].length;

export async function sharedBlocksPage(app) {
  const blocks = await get('/v1/blocks/?limit=100');
  const status = h('div', {class: 'status'});
  const label = h('input', {id: 'shared-label', placeholder: 'label', required: true, 'aria-label': 'Label'});
  const value = h('textarea', {id: 'shared-value', rows: 2, placeholder: 'value', 'aria-label': 'Value'});
  mount(app, h('section', {class: 'card'}, h('h1', {}, `Shared blocks (${blocks.length})`),
    h('p', {class: 'muted'}, 'Blocks kept per user and attached to agents (an agent\'s memory tab edits them too).'),
    blocks.length === 0 ? h('p', {class: 'muted'}, 'None yet.') : blocks.map(b => {
      const text = h('textarea', {rows: 3, 'aria-label': `${b.label} value`}, b.value);
      const note = h('div', {class: 'status'});
      return h('form', {class: 'block card', onsubmit: async e => {
        e.preventDefault();
        try { await patch(`/v1/blocks/${enc(b.id)}`, {value: text.value}); mount(note, h('p', {class: 'ok'}, 'Saved.')); }
        catch (err) { mount(note, problem(err)); }
      }}, h('header', {}, h('h3', {}, b.label), h('span', {class: 'count'}, `${chars(b.value)}/${b.limit}`)),
      bar(chars(b.value), b.limit), text, h('button', {type: 'submit'}, 'Save'), note);
    })),
  h('form', {class: 'card', onsubmit: async e => {
    e.preventDefault();
    try { await post('/v1/blocks/', {label: label.value.trim(), value: value.value}); await sharedBlocksPage(app); }
    catch (err) { mount(status, problem(err)); }
  }}, h('h2', {}, 'New shared block'), label, value, h('button', {type: 'submit'}, 'Create'), status));
}
