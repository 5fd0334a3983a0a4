// Sign in: the key is checked against the server before it is kept (in this tab's sessionStorage only).
import {get, signIn, signOut} from './api.js';
import {h, mount, problem} from './dom.js';

export function signInPage(app) {
  const input = h('input', {id: 'key', type: 'password', autocomplete: 'off', placeholder: 'sk-…', required: true,
    'aria-label': 'API key'});
  const status = h('div', {class: 'status'});
  const form = h('form', {class: 'card narrow', id: 'signin', onsubmit: async e => {
    e.preventDefault();
    signIn(input.value);
    try {
      await get('/v1/metadata/user');
      location.hash = '#/agents';
    } catch (err) {
      signOut();
      mount(status, problem(err));
    }
  }},
  h('h1', {}, 'Sign in'),
  h('p', {class: 'muted'}, 'An API key of this server (', h('code', {}, 'engram keys create --user NAME'),
    '). The console sees what the key may see, nothing else; the key stays in this tab.'),
  h('label', {for: 'key'}, 'API key'), input,
  h('button', {type: 'submit'}, 'Sign in'), status);
  mount(app, form);
  input.focus();
}
