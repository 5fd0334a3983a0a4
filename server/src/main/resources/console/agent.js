// One agent: a header and a tab per view (memory, conversation, context, archival, notes, schedules, tools).
import {enc, get} from './api.js';
import {h, mount} from './dom.js';
import {memoryTab} from './memory.js';
import {conversationTab} from './conversation.js';
import {contextTab} from './context.js';
import {archivalTab} from './archival.js';
import {notesTab} from './notes.js';
import {schedulesTab} from './schedules.js';
import {toolsTab} from './tools.js';

const TABS = [
  ['memory', 'Memory', memoryTab],
  ['conversation', 'Conversation', conversationTab],
  ['context', 'Context window', contextTab],
  ['archival', 'Archival', archivalTab],
  ['notes', 'Notes', notesTab],
  ['schedules', 'Schedules', schedulesTab],
  ['tools', 'Tools', toolsTab],
];

export async function agentPage(app, id, tab) {
  const agent = await get(`/v1/agents/${enc(id)}`);
  const current = TABS.find(t => t[0] === tab) || TABS[0];
  const body = h('section', {class: 'tab', id: `tab-${current[0]}`});
  mount(app,
    h('div', {class: 'agent-head'},
      h('h1', {id: 'agent-name'}, agent.name),
      h('span', {class: 'muted mono'}, agent.id),
      h('span', {class: 'muted'}, agent.model || (agent.llm_config && agent.llm_config.handle) || ''),
      agent.pending_approval ? h('a', {class: 'badge warn', href: `#/agents/${enc(id)}/conversation`}, 'approval pending') : null),
    h('nav', {class: 'tabs', role: 'tablist'}, TABS.map(([key, label]) =>
      h('a', {href: `#/agents/${enc(id)}/${key}`, role: 'tab', class: key === current[0] ? 'active' : '',
        'aria-selected': key === current[0] ? 'true' : 'false', id: `tablink-${key}`}, label))),
    body);
  await current[2](body, agent);
}
