// Notes about the agent's user (shared by the user's agents): listed newest first and searched with scores.
import {enc, get} from './api.js';
import {h, mount, problem, when} from './dom.js';

export async function notesTab(el, agent) {
  const base = `/v1/agents/${enc(agent.id)}/notes`;
  const notes = await get(`${base}?limit=100`);
  const results = h('div', {id: 'note-results'});
  const query = h('input', {type: 'search', id: 'note-query', placeholder: 'Search the notes', 'aria-label': 'Query'});
  const search = async e => {
    e.preventDefault();
    if (!query.value.trim()) return;
    try {
      const r = await get(`${base}/search?query=${enc(query.value.trim())}&top_k=20`);
      mount(results, r.results.length === 0 ? h('p', {class: 'muted'}, 'No hits.') : r.results.map(hit =>
        h('div', {class: 'row hit'}, h('span', {class: 'num'}, hit.score.toFixed(4)),
          h('span', {class: 'retrievers'}, Object.entries(hit.retrievers || {}).map(([name, c]) =>
            h('span', {class: 'badge', title: `raw score ${c.score.toFixed(4)}`}, `${name} #${c.rank}`))),
          h('span', {class: 'text'}, hit.content))));
    } catch (err) {
      mount(results, problem(err));
    }
  };
  mount(el,
    h('form', {class: 'card', id: 'note-search', onsubmit: search}, h('div', {class: 'row-inline'}, query,
      h('button', {type: 'submit'}, 'Search')), results),
    h('div', {class: 'card', id: 'notes'}, h('h3', {}, `Notes about ${agent.name}'s user (${notes.length})`),
      h('p', {class: 'muted'}, 'Written by the agents with their tools; every agent of the user sees them.'),
      notes.length === 0 ? h('p', {class: 'muted'}, 'No notes yet.') : notes.map(n =>
        h('div', {class: 'row note'}, h('span', {class: 'text'}, n.content), h('span', {class: 'muted'}, when(n.updated_at))))));
}
