// Agents: the key's agents, a search box, a create form and an agent-file (.af) upload.
import {enc, get, post, upload} from './api.js';
import {h, mount, problem, when} from './dom.js';

export async function agentsPage(app) {
  const agents = await get('/v1/agents/?limit=1000');
  const list = h('div', {class: 'list', id: 'agent-list'});
  const search = h('input', {type: 'search', id: 'agent-search', placeholder: 'Search by name, tag or id',
    'aria-label': 'Search agents', oninput: () => show()});

  function show() {
    const q = search.value.trim().toLowerCase();
    const shown = agents.filter(a => !q || [a.name, a.id, ...(a.tags || [])].some(s => String(s).toLowerCase().includes(q)));
    mount(list, shown.length === 0 ? h('p', {class: 'muted'}, agents.length ? 'No agent matches.' : 'No agents yet.')
      : shown.map(a => h('a', {class: 'row agent', href: `#/agents/${enc(a.id)}/memory`, dataset: {id: a.id}},
        h('strong', {}, a.name),
        h('span', {class: 'muted mono'}, a.id),
        h('span', {class: 'muted'}, a.model || (a.llm_config && a.llm_config.handle) || ''),
        h('span', {class: 'muted'}, `${(a.memory && a.memory.blocks || []).length} blocks · ${(a.tools || []).length} tools`),
        a.pending_approval ? h('span', {class: 'badge warn'}, 'approval pending') : null,
        h('span', {class: 'muted'}, when(a.created_at)))));
  }
  show();

  mount(app,
    h('section', {class: 'card'}, h('div', {class: 'head'}, h('h1', {}, `Agents (${agents.length})`), search), list),
    h('div', {class: 'cols'}, createForm(), uploadForm()));
  search.focus();
}

function createForm() {
  const status = h('div', {class: 'status'});
  const field = (id, label, input) => [h('label', {for: id}, label), input];
  const name = h('input', {id: 'new-name', required: true, maxlength: 200});
  const model = h('input', {id: 'new-model', placeholder: 'the server\'s default model'});
  const persona = h('textarea', {id: 'new-persona', rows: 3}, 'I am a helpful assistant.');
  const human = h('textarea', {id: 'new-human', rows: 2}, '');
  return h('form', {class: 'card', id: 'create-agent', onsubmit: async e => {
    e.preventDefault();
    const body = {name: name.value.trim(), memory_blocks: [{label: 'persona', value: persona.value}, {label: 'human', value: human.value}]};
    if (model.value.trim()) body.model = model.value.trim();
    try {
      const agent = await post('/v1/agents/', body);
      location.hash = `#/agents/${enc(agent.id)}/memory`;
    } catch (err) {
      mount(status, problem(err));
    }
  }}, h('h2', {}, 'Create an agent'), field('new-name', 'Name', name), field('new-model', 'Model', model),
  field('new-persona', 'Persona block', persona), field('new-human', 'Human block', human),
  h('button', {type: 'submit'}, 'Create'), status);
}

function uploadForm() {
  const status = h('div', {class: 'status'});
  const file = h('input', {id: 'af-file', type: 'file', accept: '.af,.json,application/json', required: true});
  return h('form', {class: 'card', id: 'import-agent', onsubmit: async e => {
    e.preventDefault();
    if (!file.files[0]) return;
    try {
      const result = await upload('/v1/agents/import', file.files[0]);
      const ids = result.agent_ids || [];
      const dropped = (result.dropped_grants || []).length;
      mount(status, h('p', {class: 'ok'}, `Imported ${ids.length} agent(s)`, dropped ? `; ${dropped} grant(s) not given` : ''));
      if (ids.length) location.hash = `#/agents/${enc(ids[0])}/memory`;
    } catch (err) {
      mount(status, problem(err));
    }
  }}, h('h2', {}, 'Import an agent file'),
  h('p', {class: 'muted'}, 'A Letta Agent File (.af): all or nothing, owned by you.'),
  h('label', {for: 'af-file'}, 'File'), file, h('button', {type: 'submit'}, 'Import'), status);
}
