// The bar's menus and, on a narrow screen, its Menu button. Part of shell.js.

// Menus in the bar (<details>): one open at a time, closed by a choice, Escape or a click elsewhere.
const menus = () => Array.from(document.querySelectorAll<HTMLDetailsElement>('details.menu-button'));

export function closeMenus(except?: HTMLDetailsElement) {
  for (const m of menus()) if (m !== except) m.open = false;
}

export function setUpMenus() {
  for (const m of menus())
    m.addEventListener('toggle', () => {
      if (m.open) closeMenus(m);
    });
  document.addEventListener('click', (event) => {
    if (!(event.target as Element).closest('details.menu-button')) closeMenus();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeMenus();
  });
}

// The bar on a narrow screen (shell.css, max-width 640px): the tools fold into one Menu button,
// a list under the bar; a choice in it closes it, as do Escape and a click elsewhere.
const bar = () => document.querySelector('header.bar')!;
const toolsToggle = () => document.getElementById('tools-toggle');

export function closeTools() {
  const toggle = toolsToggle();
  if (!toggle || !bar().classList.contains('tools-open')) return;
  bar().classList.remove('tools-open');
  toggle.setAttribute('aria-expanded', 'false');
}

export function setUpTools() {
  const toggle = toolsToggle();
  if (!toggle) return;
  toggle.addEventListener('click', () => {
    const open = !bar().classList.contains('tools-open');
    bar().classList.toggle('tools-open', open);
    toggle.setAttribute('aria-expanded', String(open));
  });
  for (const id of ['comment-toggle', 'next-toggle']) document.getElementById(id)?.addEventListener('click', closeTools);
  document.addEventListener('click', (event) => {
    if (!(event.target as Element).closest('header.bar')) closeTools();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeTools();
  });
}
