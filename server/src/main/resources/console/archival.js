// Archival memory: passages listed and added, and searched with each hit's score and the retrievers that found it.
import {del, enc, get, post} from './api.js';
import {h, mount, problem, when} from './dom.js';

export async function archivalTab(el, agent) {
  const base = `/v1/agents/${enc(agent.id)}/archival-memory`;
  const results = h('div', {id: 'search-results'});
  const list = h('div', {id: 'passages'});
  const query = h('input', {type: 'search', id: 'archival-query', placeholder: 'Search archival memory', 'aria-label': 'Query'});
  const text = h('textarea', {id: 'passage-text', rows: 2, placeholder: 'A new passage', 'aria-label': 'New passage'});
  const tags = h('input', {id: 'passage-tags', placeholder: 'tags, comma separated', 'aria-label': 'Tags'});
  const status = h('div', {class: 'status'});

  async function refresh() {
    const passages = await get(`${base}?limit=100`);
    mount(list, h('h3', {}, `Passages (${passages.length}${passages.length === 100 ? '+' : ''})`),
      passages.map(p => h('div', {class: 'row passage'}, h('div', {class: 'text'}, p.text),
        h('span', {class: 'muted'}, (p.tags || []).join(', ')), h('span', {class: 'muted'}, when(p.created_at)),
        h('button', {class: 'link danger', onclick: async () => {
          try { await del(`${base}/${enc(p.id)}`); await refresh(); } catch (err) { mount(status, problem(err)); }
        }}, 'delete'))));
  }

  const search = async e => {
    e.preventDefault();
    if (!query.value.trim()) return;
    try {
      const r = await get(`${base}/search?query=${enc(query.value.trim())}&top_k=20`);
      const rows = r.results.map(hit => h('tr', {class: 'hit'},
        h('td', {class: 'num'}, hit.score === undefined ? '' : hit.score.toFixed(4)),
        h('td', {class: 'retrievers'}, Object.entries(hit.retrievers || {}).map(([name, c]) =>
          h('span', {class: 'badge', title: `raw score ${c.score.toFixed(4)}`}, `${name} #${c.rank}`))),
        h('td', {}, hit.content, (hit.tags || []).length ? h('span', {class: 'muted'}, ` [${hit.tags.join(', ')}]`) : '')));
      mount(results, rows.length === 0 ? h('p', {class: 'muted'}, 'No hits.') : h('table', {class: 'hits'},
        h('thead', {}, h('tr', {}, h('th', {class: 'num'}, 'score'), h('th', {}, 'found by'), h('th', {}, 'passage'))),
        h('tbody', {}, rows)));
    } catch (err) {
      mount(results, problem(err));
    }
  };

  const add = async e => {
    e.preventDefault();
    try {
      await post(base, {text: text.value, tags: tags.value.split(',').map(t => t.trim()).filter(Boolean)});
      text.value = '';
      mount(status);
      await refresh();
    } catch (err) {
      mount(status, problem(err));
    }
  };

  mount(el,
    h('form', {class: 'card', id: 'archival-search', onsubmit: search}, h('div', {class: 'row-inline'}, query,
      h('button', {type: 'submit'}, 'Search')),
      h('p', {class: 'muted'}, 'Hybrid search: the fused score, and each retriever\'s rank (BM25 on words, vector on meaning).'),
      results),
    h('form', {class: 'card', id: 'passage-add', onsubmit: add}, text, h('div', {class: 'row-inline'}, tags,
      h('button', {type: 'submit'}, 'Add passage')), status),
    h('div', {class: 'card'}, list));
  await refresh();
}
