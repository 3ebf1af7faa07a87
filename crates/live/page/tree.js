// The tree of shown objects: the slaves in project order, under each its charts (one per
// unit) and under those its variables, with a checkbox at every level; after the slaves, the
// groups other modules register (the scene's objects). Hiding a variable takes its series out
// of the charts (it is neither decimated nor drawn), hiding all of a chart's variables hides
// the chart, hiding a slave hides all its charts. The choices are kept in localStorage, per
// run (the title and the columns), and come back after a reload.
//
// Tree groups of other modules (the contract): a module registers
//   group = { id, label, items: [{ id, label }], setVisible(itemId, visible) }
// by pushing it to window.msimTreeGroups and dispatching
//   new CustomEvent('msim:tree-group', { detail: group }) on window.

import { applyVisibility } from './charts.js';
import { $, page } from './page.js';

const root = $('tree');
let storageKey = '';
/** Per registered group id: the group and the ids of its hidden items. */
const extra = new Map();

/** The localStorage key of this run: its title, mode and columns. */
function keyOf(meta) {
  const names = meta.columns.map((c) => c.name).join('\n');
  let h = 0;
  for (let i = 0; i < names.length; i++) h = (Math.imul(h, 31) + names.charCodeAt(i)) | 0;
  return 'mastersim.tree:' + meta.mode + ':' + meta.title + ':' + (h >>> 0).toString(16);
}

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey) || '{}');
    return saved && typeof saved === 'object' ? saved : {};
  } catch (e) {
    return {};
  }
}

function save() {
  const groups = {};
  for (const [id, g] of extra) groups[id] = [...g.hidden];
  try {
    localStorage.setItem(storageKey, JSON.stringify({ hidden: [...page.hidden], groups }));
  } catch (e) { /* storage full or disabled: the choice lasts until the reload */ }
  publish();
}

/** A checkbox with `cls`, `data` attributes and a label text, in a <label>. */
function box(cls, data, text, swatch) {
  const label = document.createElement('label');
  label.className = 'tree-label';
  const input = document.createElement('input');
  input.type = 'checkbox';
  input.className = cls;
  Object.assign(input.dataset, data);
  label.appendChild(input);
  if (swatch) {
    const s = document.createElement('span');
    s.className = 'swatch';
    s.style.background = swatch;
    label.appendChild(s);
  }
  label.appendChild(document.createTextNode(text));
  return { label, input };
}

/** Sets a parent box from its children: checked when all are, mixed when some are. */
function summarize(input, states) {
  const on = states.filter(Boolean).length;
  input.checked = on === states.length && on > 0;
  input.indeterminate = on > 0 && on < states.length;
}

/** A node: a row with a box and the list of its children. */
function node(cls, parent) {
  const li = document.createElement('li');
  li.className = cls;
  const ul = document.createElement('ul');
  parent.appendChild(li);
  return { li, ul };
}

// ---------------------------------------------------------------------------------------
// Slaves, charts, variables
// ---------------------------------------------------------------------------------------

const slaveBoxes = [];        // {input, names}, for slaves and their charts

function setShown(names, shown) {
  for (const n of names) { if (shown) page.hidden.delete(n); else page.hidden.add(n); }
  refresh();
  applyVisibility();
  save();
}

/** Updates every box from page.hidden (and each group's hidden items). */
function refresh() {
  for (const input of root.querySelectorAll('input.signal-toggle')) input.checked = !page.hidden.has(input.dataset.name);
  for (const { input, names } of slaveBoxes) summarize(input, names.map((n) => !page.hidden.has(n)));
  for (const g of extra.values()) {
    for (const [id, input] of g.boxes) input.checked = !g.hidden.has(id);
    summarize(g.box, g.group.items.map((it) => !g.hidden.has(String(it.id))));
  }
}

function buildSlave(list, slave, groups) {
  const names = groups.flatMap((g) => g.signals.map((s) => s.name));
  const { li, ul } = node('tree-slave', list);
  const b = box('tree-slave-toggle', { slave }, slave);
  b.input.addEventListener('change', () => setShown(names, b.input.checked));
  slaveBoxes.push({ input: b.input, names });
  li.append(b.label, ul);
  for (const g of groups) {
    const chart = node('tree-chart', ul);
    const cb = box('tree-chart-toggle', { group: g.key }, '[' + g.unit + ']');
    const chartNames = g.signals.map((s) => s.name);
    cb.input.addEventListener('change', () => setShown(chartNames, cb.input.checked));
    slaveBoxes.push({ input: cb.input, names: chartNames });
    chart.li.append(cb.label, chart.ul);
    for (const s of g.signals) {
      const v = node('tree-variable', chart.ul);
      const short = s.name.startsWith(slave + '.') ? s.name.slice(slave.length + 1) : s.name;
      const vb = box('signal-toggle', { name: s.name }, short, s.color);
      vb.input.addEventListener('change', () => setShown([s.name], vb.input.checked));
      v.li.appendChild(vb.label);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Groups of other modules
// ---------------------------------------------------------------------------------------

let groupList = null;

function addGroup(group, saved) {
  if (!group || typeof group.id !== 'string' || !Array.isArray(group.items)) return;
  const old = extra.get(group.id);
  if (old) old.li.remove();
  const hidden = new Set((saved && Array.isArray(saved[group.id]) ? saved[group.id] : old ? [...old.hidden] : []).map(String));
  const { li, ul } = node('tree-group', groupList);
  const gb = box('tree-group-toggle', { group: group.id }, String(group.label ?? group.id));
  li.append(gb.label, ul);
  const g = { group, hidden, li, box: gb.input, boxes: new Map() };
  extra.set(group.id, g);
  const setItem = (id, shown) => {
    if (shown) hidden.delete(id); else hidden.add(id);
    try { group.setVisible(id, shown); } catch (e) { console.error('tree group ' + group.id, e); }
  };
  gb.input.addEventListener('change', () => {
    for (const it of group.items) setItem(String(it.id), gb.input.checked);
    refresh();
    save();
  });
  for (const it of group.items) {
    const id = String(it.id);
    const item = node('tree-item', ul);
    const ib = box('tree-item-toggle', { group: group.id, item: id }, String(it.label ?? id));
    ib.input.addEventListener('change', () => { setItem(id, ib.input.checked); refresh(); save(); });
    g.boxes.set(id, ib.input);
    item.li.appendChild(ib.label);
    if (hidden.has(id)) setItem(id, false);
  }
  refresh();
  publish();
}

/** For the tests: window.mastersimView.tree = {key, hidden: [names], groups: {id: [hidden ids]}}. */
function publish() {
  if (!window.mastersimView) return;
  const groups = {};
  for (const [id, g] of extra) groups[id] = [...g.hidden];
  window.mastersimView.tree = { key: storageKey, hidden: [...page.hidden], groups };
}

/** Builds the tree from page.groups (after buildCharts) and restores the saved choices. */
export function buildTree() {
  if (!root) return;
  storageKey = keyOf(page.meta);
  const saved = load();
  const known = new Set(page.meta.columns.map((c) => c.name));
  page.hidden.clear();
  if (Array.isArray(saved.hidden)) for (const n of saved.hidden) if (known.has(n)) page.hidden.add(n);
  root.textContent = '';
  const title = document.createElement('h2');
  title.textContent = 'Shown';
  const list = document.createElement('ul');
  list.className = 'tree-root';
  root.append(title, list);
  const bySlave = new Map();
  for (const g of page.groups) {
    if (!bySlave.has(g.slave)) bySlave.set(g.slave, []);
    bySlave.get(g.slave).push(g);
  }
  for (const [slave, groups] of bySlave) buildSlave(list, slave, groups);
  groupList = list;
  for (const group of window.msimTreeGroups || []) addGroup(group, saved.groups);
  window.addEventListener('msim:tree-group', (ev) => addGroup(ev.detail, load().groups));
  refresh();
  applyVisibility();
  publish();
}
