// Scheduled messages: listed, created (one-time or cron, UTC) and deleted.
import {del, enc, get, post} from './api.js';
import {h, mount, problem} from './dom.js';

export async function schedulesTab(el, agent) {
  const base = `/v1/agents/${enc(agent.id)}/schedule`;
  const list = h('div', {id: 'schedules'});
  const status = h('div', {class: 'status'});
  const message = h('input', {id: 'schedule-message', placeholder: 'the message to send', required: true, 'aria-label': 'Message'});
  const cron = h('input', {id: 'schedule-cron', placeholder: 'cron, e.g. 0 9 * * 1-5 (UTC); empty: once', 'aria-label': 'Cron'});
  const at = h('input', {id: 'schedule-at', type: 'datetime-local', 'aria-label': 'When (once)'});

  async function refresh() {
    const page = await get(`${base}?limit=100`);
    const items = page.scheduled_messages || page.items || (Array.isArray(page) ? page : []);
    mount(list, items.length === 0 ? h('p', {class: 'muted'}, 'Nothing scheduled.') : items.map(s =>
      h('div', {class: 'row schedule'},
        h('span', {}, describe(s.schedule)),
        h('span', {class: 'text'}, ((s.message || {}).messages || []).map(m => typeof m.content === 'string' ? m.content
          : (m.content || []).map(p => p.text).join('')).join(' ')),
        h('span', {class: 'muted'}, s.next_scheduled_time || s.next_scheduled_at || ''),
        h('button', {class: 'link danger', onclick: async () => {
          try { await del(`${base}/${enc(s.id)}`); await refresh(); } catch (err) { mount(status, problem(err)); }
        }}, 'delete'))));
  }

  const create = async e => {
    e.preventDefault();
    const schedule = cron.value.trim() ? {type: 'recurring', cron_expression: cron.value.trim()}
      : {type: 'one-time', scheduled_at: at.value ? new Date(at.value).getTime() : Date.now() + 60_000};
    try {
      await post(base, {schedule, messages: [{role: 'user', content: message.value}]});
      message.value = '';
      mount(status);
      await refresh();
    } catch (err) {
      mount(status, problem(err));
    }
  };

  mount(el, h('div', {class: 'card'}, list),
    h('form', {class: 'card', id: 'schedule-add', onsubmit: create}, h('h3', {}, 'Schedule a message'), message,
      h('div', {class: 'row-inline'}, cron, at, h('button', {type: 'submit'}, 'Schedule')), status));
  await refresh();
}

function describe(s) {
  if (!s) return '';
  return s.type === 'recurring' ? `every ${s.cron_expression} (UTC)` : `once at ${new Date(s.scheduled_at).toLocaleString()}`;
}
