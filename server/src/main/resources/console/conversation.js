// The conversation as a timeline (user, assistant, reasoning, tool calls and returns, approvals, errors, timings),
// a chat box that streams the reply, and the pending approval to approve or deny.
import {enc, get, stream} from './api.js';
import {h, mount, problem} from './dom.js';

export async function conversationTab(el, agent) {
  const base = `/v1/agents/${enc(agent.id)}`;
  const history = await get(`${base}/messages?order=asc&limit=100`);
  const timeline = h('ol', {class: 'timeline', id: 'timeline', 'aria-live': 'polite'});
  const approvals = h('div', {id: 'approvals'});
  const input = h('textarea', {id: 'chat-input', rows: 2, placeholder: 'Message the agent (Enter sends, Shift+Enter a new line)',
    'aria-label': 'Message'});
  const send = h('button', {type: 'submit', id: 'chat-send'}, 'Send');
  const status = h('div', {class: 'status', id: 'chat-status'});
  const items = new Map();
  let previous = null;

  /** Adds a message, or extends the one with the same id and type (a streamed fragment). */
  function show(m) {
    const k = `${m.id}|${m.message_type}`;
    const existing = items.get(k);
    if (existing) {
      existing.message = merge(existing.message, m);
      const fresh = item(existing.message, existing.previous);
      existing.el.replaceWith(fresh);
      existing.el = fresh;
      return;
    }
    const entry = {message: {...m, tool_call: m.tool_call ? {...m.tool_call} : undefined}, previous};
    entry.el = item(entry.message, previous);
    previous = m.date || previous;
    items.set(k, entry);
    timeline.append(entry.el);
    entry.el.scrollIntoView({block: 'nearest'});
  }

  function pending(request) {
    if (!request) { mount(approvals); return; }
    const call = request.tool_call || {};
    const reason = h('input', {id: 'approval-reason', placeholder: 'reason (optional, sent with a denial)'});
    const answer = approve => () => turn({messages: [{type: 'approval', approvals: [{type: 'approval',
      tool_call_id: call.tool_call_id, approve, reason: reason.value || undefined}]}]});
    mount(approvals, h('div', {class: 'card approval', id: 'approval'},
      h('h3', {}, 'Approval needed: ', h('code', {}, call.name)),
      h('pre', {class: 'args'}, pretty(call.arguments)),
      h('div', {class: 'row-inline'}, reason,
        h('button', {id: 'approve', onclick: answer(true)}, 'Approve'),
        h('button', {id: 'deny', class: 'danger', onclick: answer(false)}, 'Deny'))));
  }

  async function turn(body) {
    send.disabled = true;
    mount(status, h('span', {class: 'muted'}, 'Working…'));
    pending(null);
    const started = performance.now();
    let stop = null, usage = null, request = null;
    try {
      await stream(`${base}/messages/stream`, {...body, stream_tokens: true, include_pings: false}, m => {
        if (m.message_type === 'stop_reason') stop = m.stop_reason;
        else if (m.message_type === 'usage_statistics') usage = m;
        else if (m.message_type === 'ping') return;
        else {
          if (m.message_type === 'approval_request_message') {
            request = m;
            drop(`tool_call_message`, (m.tool_call || {}).tool_call_id); // the call streamed before it had to wait
          }
          show(m);
        }
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      mount(status, h('span', {class: 'muted', id: 'turn-done'}, `${stop || 'done'} · ${seconds} s`,
        usage && usage.step_count > 0
          ? ` · ${usage.prompt_tokens} tokens in, ${usage.completion_tokens} out, ${usage.step_count} steps` : ''));
      pending(stop === 'requires_approval' ? request : null);
    } catch (err) {
      timeline.append(h('li', {class: 'msg error'}, h('span', {class: 'kind'}, 'error'), err.message));
      mount(status, problem(err));
    } finally {
      send.disabled = false;
    }
  }

  /** Removes the shown message of a type whose tool call is callId. */
  function drop(type, callId) {
    for (const [k, entry] of items) {
      if (entry.message.message_type === type && (entry.message.tool_call || {}).tool_call_id === callId) {
        entry.el.remove();
        items.delete(k);
      }
    }
  }

  history.forEach(show);
  pending(agent.pending_approval);
  const form = h('form', {class: 'chat', id: 'chat', onsubmit: e => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    // the stream carries the agent's messages, not the user's: show it as sent
    show({id: `sent-${Date.now()}`, message_type: 'user_message', date: new Date().toISOString(), content: text});
    turn({messages: [{role: 'user', content: text}]});
  }}, input, send);
  input.addEventListener('keydown', e => {
    if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });
  mount(el, timeline, h('div', {class: 'composer'}, approvals, form, status));
}

function merge(a, b) {
  const out = {...a};
  if (b.content !== undefined) out.content = (typeof a.content === 'string' ? a.content : '') + text(b.content);
  if (b.reasoning !== undefined) out.reasoning = (a.reasoning || '') + b.reasoning;
  if (b.tool_return !== undefined) out.tool_return = (a.tool_return || '') + b.tool_return;
  if (b.status !== undefined) out.status = b.status;
  if (b.tool_call) {
    const t = {...(a.tool_call || {})};
    if (b.tool_call.name) t.name = b.tool_call.name;
    if (b.tool_call.tool_call_id) t.tool_call_id = b.tool_call.tool_call_id;
    if (b.tool_call.arguments) t.arguments = (t.arguments || '') + b.tool_call.arguments;
    out.tool_call = t;
  }
  return out;
}

const text = c => Array.isArray(c) ? c.map(p => p.text || '').join('') : (c ?? '');

function pretty(args) {
  try { return JSON.stringify(JSON.parse(args), null, 2); } catch (e) { return args || ''; }
}

function timing(m, previous) {
  if (!m.date) return '';
  const t = new Date(m.date);
  const gap = previous ? (t - new Date(previous)) / 1000 : 0;
  return t.toLocaleTimeString() + (gap >= 0.05 && gap < 3600 ? ` · +${gap.toFixed(1)} s` : '');
}

function item(m, previous) {
  const when = h('time', {datetime: m.date || ''}, timing(m, previous));
  const kind = m.message_type.replace('_message', '').replace('_', ' ');
  const li = (cls, ...body) => h('li', {class: `msg ${cls}`, dataset: {type: m.message_type, id: m.id}},
    h('div', {class: 'meta'}, h('span', {class: 'kind'}, kind), when), ...body);
  switch (m.message_type) {
    case 'user_message': return li('user', h('div', {class: 'text'}, text(m.content)));
    case 'assistant_message': return li('assistant', h('div', {class: 'text'}, text(m.content)));
    case 'reasoning_message': return li('reasoning', h('div', {class: 'text'}, m.reasoning || ''));
    case 'hidden_reasoning_message': return li('reasoning', h('div', {class: 'muted'}, 'hidden reasoning'));
    case 'tool_call_message': return li('tool', h('code', {}, (m.tool_call || {}).name || ''),
      h('pre', {class: 'args'}, pretty((m.tool_call || {}).arguments)));
    case 'tool_return_message': return li(`tool-return ${m.status === 'error' ? 'failed' : ''}`,
      h('span', {class: `badge ${m.status === 'error' ? 'bad' : 'good'}`}, m.status || ''),
      h('pre', {class: 'return'}, m.tool_return || ''));
    case 'approval_request_message': return li('approval-request', 'waiting for approval: ',
      h('code', {}, (m.tool_call || {}).name || ''), h('pre', {class: 'args'}, pretty((m.tool_call || {}).arguments)));
    case 'approval_response_message': return li('approval-response', m.approve ? 'approved' : 'denied',
      m.reason ? ` (${m.reason})` : '');
    case 'system_message': return li('system', h('div', {class: 'text muted'}, text(m.content)));
    default: return li('other', h('pre', {}, JSON.stringify(m, null, 2)));
  }
}
