// The context window broken down: system, core memory, memory statistics, summary, tools, messages, against the limit.
import {enc, get} from './api.js';
import {bar, h, mount} from './dom.js';

const PARTS = [
  ['num_tokens_system', 'System instructions', 'system_prompt'],
  ['num_tokens_core_memory', 'Core memory blocks', 'core_memory'],
  ['num_tokens_external_memory_summary', 'Memory statistics', 'external_memory_summary'],
  ['num_tokens_summary_memory', 'Summary of evicted messages', 'summary_memory'],
  ['num_tokens_functions_definitions', 'Tool definitions', null],
  ['num_tokens_messages', 'Messages', null],
];

export async function contextTab(el, agent) {
  const c = await get(`/v1/agents/${enc(agent.id)}/context`);
  const max = c.context_window_size_max;
  const used = c.context_window_size_current;
  mount(el,
    h('div', {class: 'card', id: 'context-total'},
      h('h3', {}, `${used.toLocaleString()} of ${max.toLocaleString()} tokens (${(100 * used / max).toFixed(1)} %)`),
      bar(used, max, 'tokens '),
      h('p', {class: 'muted'}, `${c.num_messages} messages in context · ${c.num_recall_memory} in recall memory · `
        + `${c.num_archival_memory} archival passages`)),
    h('table', {class: 'card parts', id: 'context-parts'},
      h('thead', {}, h('tr', {}, h('th', {}, 'part'), h('th', {class: 'num'}, 'tokens'), h('th', {}, 'of the window'))),
      h('tbody', {}, PARTS.map(([k, label, textKey]) => h('tr', {dataset: {part: k}},
        h('td', {}, textKey && c[textKey] ? h('details', {}, h('summary', {}, label), h('pre', {}, c[textKey])) : label,
          k === 'num_tokens_functions_definitions' ? h('span', {class: 'muted'}, ` (${(c.functions_definitions || []).length})`) : null),
        h('td', {class: 'num'}, (c[k] || 0).toLocaleString()),
        h('td', {}, bar(c[k] || 0, max, `${label}: `)))))));
}
