// The console's entry: a router on location.hash. #/agents, #/agents/ID/TAB, #/blocks, #/signin.
import {get, key, signOut} from './api.js';
import {h, mount, problem} from './dom.js';
import {signInPage} from './signin.js';
import {agentsPage} from './agents.js';
import {agentPage} from './agent.js';
import {sharedBlocksPage} from './shared.js';

const app = document.getElementById('app');
const nav = document.getElementById('nav');
let who = null;

async function caller() {
  if (!who) {
    const user = await get('/v1/metadata/user');
    who = user.id || user.name || 'signed in';
  }
  return who;
}

async function route() {
  const path = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (!key() || path[0] === 'signin') {
    who = null;
    mount(nav);
    return signInPage(app);
  }
  try {
    const user = await caller();
    mount(nav,
      h('a', {href: '#/agents'}, 'Agents'),
      h('a', {href: '#/blocks'}, 'Shared blocks'),
      h('span', {class: 'who', id: 'who'}, user),
      h('button', {class: 'link', id: 'signout', onclick: () => { signOut(); who = null; location.hash = '#/signin'; }},
        'Sign out'));
    if (path[0] === 'agents' && path[1]) return await agentPage(app, path[1], path[2] || 'memory');
    if (path[0] === 'blocks') return await sharedBlocksPage(app);
    return await agentsPage(app);
  } catch (err) {
    if (!key()) { location.hash = '#/signin'; return; }
    mount(app, problem(err));
  }
}

window.addEventListener('hashchange', route);
route();
