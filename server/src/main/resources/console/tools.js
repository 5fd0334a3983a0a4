// The agent's tools: each with its description and whether a call waits for approval; the rule can be changed.
import {enc, get, patch} from './api.js';
import {h, mount, problem} from './dom.js';

export async function toolsTab(el, agent) {
  const base = `/v1/agents/${enc(agent.id)}`;
  const tools = await get(`${base}/tools`);
  const fresh = await get(base);
  const approval = new Set((fresh.tool_rules || []).filter(r => r.type === 'requires_approval').map(r => r.tool_name));
  const status = h('div', {class: 'status'});
  mount(el, h('div', {class: 'card'}, h('h3', {}, `Tools (${tools.length})`), status,
    tools.map(t => {
      const box = h('input', {type: 'checkbox', checked: approval.has(t.name), class: 'requires-approval',
        dataset: {tool: t.name}, 'aria-label': `${t.name} requires approval`});
      box.addEventListener('change', async () => {
        try {
          await patch(`${base}/tools/approval/${enc(t.name)}?requires_approval=${box.checked}`);
          mount(status, h('p', {class: 'ok'}, `${t.name}: ${box.checked ? 'calls wait for approval' : 'runs without asking'}.`));
        } catch (err) {
          box.checked = !box.checked;
          mount(status, problem(err));
        }
      });
      return h('div', {class: 'row tool', dataset: {tool: t.name}},
        h('code', {}, t.name), h('span', {class: 'muted'}, t.tool_type || ''),
        h('span', {class: 'text'}, (t.description || '').split('\n')[0]),
        h('label', {class: 'check'}, box, ' requires approval'));
    })));
}
