// A panel per slave: a button per slave on the right of the toolbar opens (and closes) that
// slave's own panel, docked beside the main view, with the slave's charts and its values at
// the cursor (or at the held communication point, as the values table). The main view stays
// as it is. `?panel=<slave>` in the page's URL opens that slave's panel when the page loads.
// The panels share the charts' time window and the tree's choices.

import { addChart, onDraw, removeChart, slaveOrder } from './charts.js';
import { $, page } from './page.js';

const buttons = $('panel-buttons');
const dock = $('panels');
/** Per open slave: {section, charts, cells: [[column index, td]]}. */
const open = new Map();

/** The values the page shows: the held communication point when followed, else the cursor row. */
function shownValue(j) {
  if (page.follow && page.point) return String(page.point[j + 1]);
  if (!page.store || page.cursor < 0) return '';
  return String(page.store.get(j + 1, page.cursor));
}

function updateValues() {
  for (const p of open.values()) for (const [j, td] of p.cells) td.textContent = shownValue(j);
  publish();
}

function valuesTable(slave) {
  const table = document.createElement('table');
  table.className = 'panel-values';
  const cells = [];
  for (const g of page.groups) {
    if (g.slave !== slave) continue;
    for (const s of g.signals) {
      const tr = document.createElement('tr');
      tr.dataset.name = s.name;
      const name = document.createElement('td');
      name.className = 'name';
      name.textContent = s.name.startsWith(slave + '.') ? s.name.slice(slave.length + 1) : s.name;
      name.style.borderLeftColor = s.color;
      const unit = document.createElement('td');
      unit.className = 'unit';
      unit.textContent = g.unit;
      const value = document.createElement('td');
      value.className = 'value';
      tr.append(name, unit, value);
      table.appendChild(tr);
      cells.push([s.col, value]);
    }
  }
  return { table, cells };
}

/** Opens the panel of `slave` (or closes it when open). */
export function togglePanel(slave) {
  const p = open.get(slave);
  if (p) {
    for (const c of p.charts) removeChart(c);
    p.section.remove();
    open.delete(slave);
  } else {
    const section = document.createElement('section');
    section.className = 'slave-panel';
    section.dataset.slave = slave;
    const head = document.createElement('div');
    head.className = 'panel-head';
    const h = document.createElement('h2');
    h.textContent = slave;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'panel-close';
    close.title = 'close the panel of ' + slave;
    close.textContent = '×';
    close.addEventListener('click', () => togglePanel(slave));
    head.append(h, close);
    const { table, cells } = valuesTable(slave);
    const chartsBox = document.createElement('div');
    chartsBox.className = 'panel-charts';
    section.append(head, table, chartsBox);
    dock.appendChild(section);
    const charts = page.groups.filter((g) => g.slave === slave).map((g) => addChart(g, chartsBox));
    open.set(slave, { section, charts, cells });
  }
  dock.hidden = open.size === 0;
  for (const b of buttons.children) b.setAttribute('aria-pressed', String(open.has(b.dataset.slave)));
  updateValues();
}

/** For the tests: window.mastersimView.panels = [slave, …], the open panels in order. */
function publish() {
  if (window.mastersimView) window.mastersimView.panels = [...open.keys()];
}

/** Puts a button per slave (project order) into the toolbar; opens `?panel=` if given. */
export function buildPanels() {
  if (!buttons || !dock) return;
  buttons.textContent = '';
  const withColumns = new Set(page.groups.map((g) => g.slave));
  for (const slave of slaveOrder()) {
    if (!withColumns.has(slave)) continue;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'panel-button';
    b.dataset.slave = slave;
    b.title = 'the panel of ' + slave + ': its charts and values';
    b.setAttribute('aria-pressed', 'false');
    const icon = document.createElement('span');
    icon.className = 'panel-icon';
    icon.setAttribute('aria-hidden', 'true');
    b.append(icon, document.createTextNode(slave));
    b.addEventListener('click', () => togglePanel(slave));
    buttons.appendChild(b);
  }
  onDraw(updateValues);
  const wanted = new URLSearchParams(location.search).get('panel');
  if (wanted && withColumns.has(wanted)) togglePanel(wanted);
  publish();
}
